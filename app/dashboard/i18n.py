"""Every visible string in English and 简体中文 (`lang=zh`)."""

from __future__ import annotations

LANGS = ("en", "zh")

STRINGS: dict[str, dict[str, str]] = {
    "title": {"en": "LLM inference on the roofline", "zh": "LLM 推理的 roofline"},
    "hardware": {"en": "Accelerators", "zh": "加速器"},
    "tab_roofline": {"en": "Inference roofline", "zh": "推理 roofline"},
    "tab_ops": {"en": "Op lab", "zh": "算子实验室"},
    "tab_training": {"en": "Training lab", "zh": "训练实验室"},
    "tabs": {"en": "Views", "zh": "视图"},
    "model": {"en": "Model", "zh": "模型"},
    "custom": {"en": "custom config.json…", "zh": "自定义 config.json…"},
    "custom_help": {
        "en": "Paste a Hugging Face config.json or drop the file (max 256 KiB; parsed as JSON only).",
        "zh": "粘贴 Hugging Face config.json 或拖入文件（最大 256 KiB，只按 JSON 解析）。",
    },
    "custom_apply": {"en": "Use this config", "zh": "使用此配置"},
    "custom_ok": {
        "en": "Custom model loaded: {name}, {params} parameters.",
        "zh": "已加载自定义模型：{name}，{params} 参数。",
    },
    "custom_no_link": {
        "en": "It is too large to travel in a link ({n} characters encoded; the limit is {limit}): "
        "links and reloads will show the default model.",
        "zh": "配置过大，无法放进链接（编码后 {n} 个字符，上限 {limit}）：链接和刷新将显示默认模型。",
    },
    "batch": {"en": "Batch size", "zh": "批大小"},
    "context": {"en": "Context length (tokens)", "zh": "上下文长度（token）"},
    "kv_heads": {"en": "KV heads (MQA … MHA)", "zh": "KV 头数（MQA … MHA）"},
    "precision": {"en": "Weights / compute", "zh": "权重 / 计算精度"},
    "kv_precision": {"en": "KV cache", "zh": "KV cache 精度"},
    "flash": {"en": "FlashAttention", "zh": "FlashAttention"},
    "tensor_parallel": {"en": "Tensor parallel (GPUs)", "zh": "张量并行（GPU 数）"},
    "measurement": {"en": "Measurement", "zh": "实测"},
    "use_measured": {"en": "Use measured roofs", "zh": "使用实测性能上限"},
    "bw_eff": {"en": "Bandwidth efficiency", "zh": "带宽效率"},
    "fl_eff": {"en": "Compute efficiency", "zh": "算力效率"},
    "measured_step": {"en": "Measured decode step (ms)", "zh": "实测 decode 单步耗时（ms）"},
    "upload_measurements": {"en": "Import measurements ⇪", "zh": "导入实测数据 ⇪"},
    "measurements_loaded": {
        "en": "{n} measured points loaded; rows without counts borrow the model's.",
        "zh": "已导入 {n} 条实测数据；无计数的行借用模型的预测。",
    },
    "efficiency_notice": {
        "en": "Roofs scaled to {bw} of bandwidth and {fl} of compute.",
        "zh": "性能上限已按带宽 {bw}、算力 {fl} 缩放。",
    },
    "measured_roof": {"en": "measured", "zh": "实测"},
    "measured_point": {"en": "measured decode", "zh": "实测 decode"},
    "insight_measured": {
        "en": "Measured: a decode step of {time} ({tps} tokens/s) is {gap}x the bound — MBU {mbu}, MFU {mfu}.",
        "zh": "实测：一步 decode {time}（{tps} tokens/s），是理论下限耗时的 {gap} 倍 —— MBU {mbu}，MFU {mfu}。",
    },
    "hover_measured": {
        "en": "<b>{label}</b> (measured) on {hw}<br>time {time}<br>{achieved} achieved, roof {roof}<br>"
        "{fraction} of the roof ({gap}x away)",
        "zh": "<b>{label}</b>（实测）· {hw}<br>时间 {time}<br>达到 {achieved}，性能上限 {roof}<br>"
        "为性能上限的 {fraction}（差 {gap} 倍）",
    },
    "error": {"en": "Cannot analyse this view: {message}", "zh": "无法分析此视图：{message}"},
    "insight_tp": {
        "en": "With tensor parallelism over {n} GPUs the all-reduces cost {comm} per step over {link} "
        "({share} of the step if not overlapped).",
        "zh": "{n} 卡张量并行时，all-reduce 每步耗时 {comm}（经 {link}），不重叠时占一步的 {share}。",
    },
    "dtype_fallback": {
        "en": "{hw} has no {want} tensor roof: its matrix ops use the {got} roof.",
        "zh": "{hw} 没有 {want} 张量算力：矩阵运算按 {got} 的算力上限计算。",
    },
    "batch_invalid": {
        "en": "Batch size must be a whole number from 1 to 65,536; still showing {v}.",
        "zh": "批大小须为 1 到 65,536 的整数；仍显示 {v}。",
    },
    "context_invalid": {
        "en": "Context length must be a whole number from 1 to 1,048,576; still showing {v}.",
        "zh": "上下文长度须为 1 到 1,048,576 的整数；仍显示 {v}。",
    },
    "hardware_limit": {
        "en": "At most {n} accelerators at once: kept the first {n}.",
        "zh": "最多同时选择 {n} 个加速器：已保留前 {n} 个。",
    },
    "kv_mla": {
        "en": "An MLA model caches one latent per token, not KV heads: nothing to set.",
        "zh": "MLA 模型每个 token 缓存一个潜向量，没有 KV 头可调。",
    },
    "tp_disabled": {
        "en": "TP {n} does not divide the {heads} attention heads.",
        "zh": "TP {n} 不能整除 {heads} 个注意力头。",
    },
    "serving": {"en": "Serving", "zh": "服务"},
    "output_tokens": {"en": "Output tokens per request", "zh": "每个请求的输出 token 数"},
    "gpu_price": {"en": "GPU-hour price (USD)", "zh": "GPU 小时单价（美元）"},
    "memory_utilization": {"en": "Memory utilization (usable fraction)", "zh": "显存利用率（可用比例）"},
    "show_published": {"en": "Published measurements (reality check)", "zh": "公开实测数据（现实对照）"},
    "request": {"en": "One request", "zh": "单个请求"},
    "request_hint": {
        "en": "Set the output tokens (Serving) to time one request end to end and cost it.",
        "zh": "在“服务”中设置输出 token 数，即可计算单个请求的端到端耗时与成本。",
    },
    "interactivity": {"en": "Throughput vs interactivity", "zh": "吞吐 vs 交互性"},
    "reality": {"en": "Reality check: published measurements", "zh": "现实对照：公开实测数据"},
    "per_user_axis": {"en": "tokens/s per user (1 / TPOT)", "zh": "每用户 tokens/s（1 / TPOT）"},
    "per_gpu_axis": {"en": "output tokens/s per GPU", "zh": "每 GPU 输出 tokens/s"},
    "current_batch": {"en": "current batch", "zh": "当前批大小"},
    "col_tpot": {"en": "TPOT", "zh": "TPOT"},
    "col_ttft_req": {"en": "TTFT", "zh": "TTFT"},
    "col_e2e": {"en": "end to end", "zh": "端到端"},
    "col_user": {"en": "tok/s per user", "zh": "每用户 tok/s"},
    "col_group": {"en": "tok/s (group)", "zh": "整组 tok/s"},
    "col_cost": {"en": "USD per 1M output tokens", "zh": "每百万输出 token 美元"},
    "col_model": {"en": "model", "zh": "模型"},
    "col_scenario": {"en": "scenario", "zh": "场景"},
    "col_metric": {"en": "metric", "zh": "指标"},
    "col_measured": {"en": "measured", "zh": "实测"},
    "col_bound_value": {"en": "bound", "zh": "上限"},
    "col_fraction": {"en": "of bound", "zh": "占上限"},
    "col_mbu": {"en": "MBU", "zh": "MBU"},
    "col_source": {"en": "source", "zh": "来源"},
    "hover_published": {
        "en": "<b>published</b>: {model}, B {batch}, {tokens_in}/{tokens_out} tokens, TP {tp}<br>{title} ({date})<br>"
        "{fraction} of the bound · MBU {mbu}",
        "zh": "<b>公开实测</b>：{model}，B {batch}，{tokens_in}/{tokens_out} token，TP {tp}<br>{title}（{date}）<br>"
        "为上限的 {fraction} · MBU {mbu}",
    },
    "ridge_kind": {"en": "ridge", "zh": "脊点"},
    "elementwise": {"en": "elementwise ops", "zh": "逐元素算子"},
    "subtitle": {
        "en": "{model} · weights {weights} · KV {kv} · compute {compute} · batch {batch} · context {ctx} · "
        "TP {tp} · FlashAttention {fa}",
        "zh": "{model} · 权重 {weights} · KV {kv} · 计算 {compute} · 批 {batch} · 上下文 {ctx} · "
        "TP {tp} · FlashAttention {fa}",
    },
    "on": {"en": "on", "zh": "开"},
    "off": {"en": "off", "zh": "关"},
    "theme_dark": {"en": "Dark", "zh": "深色"},
    "present": {"en": "Presentation", "zh": "演示模式"},
    "copy_link": {"en": "Copy link", "zh": "复制链接"},
    "dropdown_select_all": {"en": "Select all", "zh": "全选"},
    "dropdown_deselect_all": {"en": "Deselect all", "zh": "取消全选"},
    "dropdown_selected_count": {"en": "{num_selected} selected", "zh": "已选 {num_selected} 项"},
    "dropdown_search": {"en": "Search", "zh": "搜索"},
    "dropdown_clear_search": {"en": "Clear search", "zh": "清除搜索"},
    "dropdown_clear_selection": {"en": "Clear selection", "zh": "清除选择"},
    "dropdown_no_options_found": {"en": "No options found", "zh": "没有匹配项"},
    "unit_tensor": {"en": "tensor", "zh": "张量核"},
    "unit_vector": {"en": "vector", "zh": "向量单元"},
    "active_params": {"en": "({n} active)", "zh": "（激活 {n}）"},
    "sliding_window": {"en": "sliding window", "zh": "滑动窗口"},
    "native_precision": {
        "en": "{model} is released in {prec}: precision set to {prec}.",
        "zh": "{model} 以 {prec} 发布：精度已设为 {prec}。",
    },
    "open_full": {"en": "Open full view ↗", "zh": "打开完整视图 ↗"},
    "copied": {"en": "Link copied", "zh": "链接已复制"},
    "copy_blocked": {
        "en": "The browser blocked the clipboard: copy the link from the field.",
        "zh": "浏览器禁止了剪贴板：请从输入框中复制链接。",
    },
    "export_html": {"en": "HTML snapshot", "zh": "HTML 快照"},
    "insight": {"en": "Insight", "zh": "解读"},
    "memory": {"en": "Memory", "zh": "显存"},
    "throughput": {"en": "Decode throughput vs batch", "zh": "decode 吞吐 vs 批大小"},
    "ops_table": {"en": "Ops of one decode step", "zh": "一步 decode 的算子"},
    "comparison": {"en": "GPU comparison", "zh": "GPU 对比"},
    "download_csv": {"en": "CSV", "zh": "CSV"},
    "download_json": {"en": "JSON", "zh": "JSON"},
    "x_axis": {"en": "Arithmetic intensity (FLOP/byte)", "zh": "算术强度（FLOP/字节）"},
    "y_axis": {"en": "Attainable performance", "zh": "可达性能"},
    "batch_axis": {"en": "Batch size", "zh": "批大小"},
    "tokens_axis": {"en": "tokens/s (bound)", "zh": "tokens/s（上限）"},
    "bytes_axis": {"en": "bytes", "zh": "字节"},
    "weights": {"en": "weights", "zh": "权重"},
    "kv_cache": {"en": "KV cache", "zh": "KV cache"},
    "activations": {"en": "activations", "zh": "激活"},
    "capacity": {"en": "capacity", "zh": "容量"},
    "max_batch": {"en": "max batch {n}", "zh": "最大批 {n}"},
    "does_not_fit": {"en": "does not fit", "zh": "显存不足"},
    "tensor_roof": {"en": "tensor roof", "zh": "张量算力上限"},
    "vector_roof": {"en": "vector roof", "zh": "向量算力上限"},
    "memory_roof": {"en": "memory", "zh": "带宽"},
    "ridge": {"en": "ridge {v}", "zh": "脊点 {v}"},
    "decode": {"en": "decode", "zh": "decode"},
    "prefill": {"en": "prefill", "zh": "prefill"},
    "attention_decode": {"en": "decode attention", "zh": "decode 注意力"},
    "trajectory": {"en": "decode, B = 1 … max batch", "zh": "decode，B = 1 … 最大批"},
    "col_op": {"en": "op", "zh": "算子"},
    "col_unit": {"en": "unit", "zh": "单元"},
    "col_flops": {"en": "FLOPs", "zh": "FLOPs"},
    "col_bytes": {"en": "bytes", "zh": "字节"},
    "col_intensity": {"en": "FLOP/byte", "zh": "FLOP/字节"},
    "col_bound": {"en": "bound", "zh": "受限于"},
    "col_time": {"en": "time (µs)", "zh": "时间（µs）"},
    "col_share": {"en": "share of step", "zh": "占比"},
    "col_gpu": {"en": "accelerator", "zh": "加速器"},
    "col_decode": {"en": "decode tokens/s", "zh": "decode tokens/s"},
    "col_ttft": {"en": "prefill (TTFT bound)", "zh": "prefill（首 token 下限）"},
    "col_maxb": {"en": "max batch", "zh": "最大批"},
    "memory_bound": {"en": "memory-bound", "zh": "带宽受限"},
    "compute_bound": {"en": "compute-bound", "zh": "算力受限"},
    "notice_ignored": {
        "en": "Ignored URL parameter {name}={value}: {why}",
        "zh": "已忽略 URL 参数 {name}={value}：{why}",
    },
    "no_hardware": {"en": "Select at least one accelerator.", "zh": "请至少选择一个加速器。"},
    "hover": {
        "en": "<b>{label}</b> on {hw}<br>{attainable} at {intensity} FLOP/byte<br>FLOPs {flops} · bytes {bytes}<br>"
        "{bound} · time {time}<br>{tokens}",
        "zh": "<b>{label}</b> · {hw}<br>{attainable}，算术强度 {intensity} FLOP/字节<br>FLOPs {flops} · 字节 {bytes}<br>"
        "{bound} · 时间 {time}<br>{tokens}",
    },
    "tokens_per_s": {"en": "{v} tokens/s", "zh": "{v} tokens/s"},
    "insight_decode": {
        "en": "Decode on {hw} is {bound}: each step moves {bytes}, {kv} of it the KV cache (batching does not share it), "
        "in at least {time}, so at most ~{tps} tokens/s. The weights occupy {weights}.",
        "zh": "{hw} 上的 decode {bound}：每一步要搬运 {bytes}，其中 KV cache 占 {kv}（加大批也无法分摊），"
        "单步耗时至少 {time}，所以最多约 {tps} tokens/s。权重占用 {weights}。",
    },
    "insight_wall_far": {
        "en": "Batching raises intensity toward ~{limit} FLOP/byte, but the KV cache fills the usable {cap} at batch "
        "~{maxb}, still far left of the ridge ({ridge}).",
        "zh": "加大批能把算术强度推向约 {limit} FLOP/字节，但批约 {maxb} 时 KV cache 就会占满可用的 {cap}，"
        "此时仍远在脊点（{ridge}）左侧。",
    },
    "insight_wall_left": {
        "en": "Batching raises intensity toward ~{limit} FLOP/byte, but the KV cache fills the usable {cap} at batch "
        "~{maxb}, still left of the ridge ({ridge}).",
        "zh": "加大批能把算术强度推向约 {limit} FLOP/字节，但批约 {maxb} 时 KV cache 就会占满可用的 {cap}，"
        "此时仍在脊点（{ridge}）左侧。",
    },
    "insight_wall_right": {
        "en": "Batching raises intensity toward ~{limit} FLOP/byte; before the KV cache fills the usable {cap} "
        "(batch ~{maxb}) decode crosses the ridge ({ridge}).",
        "zh": "加大批能把算术强度推向约 {limit} FLOP/字节；在 KV cache 占满可用的 {cap}（批约 {maxb}）之前，"
        "decode 已越过脊点（{ridge}）。",
    },
    "insight_over_weights": {
        "en": "Out of memory on {hw}: the weights alone ({weights}) exceed the usable {cap}. {way}",
        "zh": "{hw} 显存不足：仅权重（{weights}）就超过了可用的 {cap}。{way}",
    },
    "insight_over_kv": {
        "en": "Out of memory on {hw}: the KV cache of {batch} sequences of {ctx} tokens ({kv}) beside {weights} of "
        "weights needs {total}, more than the usable {cap}. {way}",
        "zh": "{hw} 显存不足：{batch} 条 {ctx} token 序列的 KV cache（{kv}）加上权重 {weights}，共需 {total}，"
        "超过可用的 {cap}。{way}",
    },
    "insight_over_activations": {
        "en": "Out of memory on {hw}: weights ({weights}) and KV cache ({kv}) fit, the activation workspace of the batch "
        "({act}) does not ({total} > {cap}). {way}",
        "zh": "{hw} 显存不足：权重（{weights}）和 KV cache（{kv}）放得下，但整批的激活工作区（{act}）放不下"
        "（{total} > {cap}）。{way}",
    },
    "way_tp": {"en": "The smallest tensor-parallel degree that fits is {n}.", "zh": "能放下的最小张量并行度是 {n}。"},
    "way_no_tp": {"en": "Not even 8-way tensor parallelism holds it.", "zh": "即使 8 卡张量并行也放不下。"},
    "way_batch": {
        "en": "At this context the largest batch that fits is {maxb}.",
        "zh": "在此上下文长度下，能放下的最大批是 {maxb}。",
    },
    "way_context": {
        "en": "At this batch the longest context that fits is {maxctx} tokens.",
        "zh": "在此批大小下，能放下的最长上下文是 {maxctx} token。",
    },
    "insight_prefill": {
        "en": "Prefill of {tokens} prompt tokens is {bound} at {intensity} FLOP/byte: at least {time} to the first token.",
        "zh": "{tokens} 个提示 token 的 prefill {bound}，算术强度 {intensity} FLOP/字节：首 token 至少需要 {time}。",
    },
    "insight_compare_memory": {
        "en": "{hw2} decodes {ratio}x the tokens/s of {hw1}: both are memory-bound here, so decode follows memory "
        "bandwidth ({bw2} against {bw1}), not FLOP/s.",
        "zh": "{hw2} 的 decode 吞吐是 {hw1} 的 {ratio} 倍：此时两者都受带宽限制，decode 看的是显存带宽"
        "（{bw2} 对 {bw1}），而不是算力。",
    },
    "insight_compare_compute": {
        "en": "{hw2} decodes {ratio}x the tokens/s of {hw1}: both are compute-bound here, so decode follows tensor "
        "FLOP/s ({fl2} against {fl1}).",
        "zh": "{hw2} 的 decode 吞吐是 {hw1} 的 {ratio} 倍：此时两者都受算力限制，decode 看的是张量算力"
        "（{fl2} 对 {fl1}）。",
    },
    "insight_compare_mixed": {
        "en": "{hw2} decodes {ratio}x the tokens/s of {hw1}: here {hw1} is {bound1} and {hw2} is {bound2}.",
        "zh": "{hw2} 的 decode 吞吐是 {hw1} 的 {ratio} 倍：此时 {hw1} {bound1}，{hw2} {bound2}。",
    },
    "insight_fastest": {
        "en": "{hw1} decodes fastest of those selected: {ratio}x the tokens/s of the next, {hw2}.",
        "zh": "所选加速器中 {hw1} 的 decode 最快：是第二名 {hw2} 的 {ratio} 倍。",
    },
    "bound_memory": {"en": "memory-bound", "zh": "受带宽限制"},
    "bound_compute": {"en": "compute-bound", "zh": "受算力限制"},
}


def t(key: str, lang: str, **values: object) -> str:
    entry = STRINGS[key]
    text = entry.get(lang) or entry["en"]
    return text.format(**values) if values else text
