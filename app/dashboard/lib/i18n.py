"""Every visible string in English and 简体中文 (`lang=zh`)."""

from __future__ import annotations

import re

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
    "ops_table": {"en": "Ops of one step", "zh": "一步中的算子"},
    "ops_for": {"en": "{hw}, {phase}: every row sums the whole model", "zh": "{hw}，{phase}：每行为整个模型之和"},
    "ops_gpu": {"en": "Accelerator", "zh": "加速器"},
    "ops_phase": {"en": "Phase", "zh": "阶段"},
    "col_scope": {"en": "counted", "zh": "计数方式"},
    "scope_n_layers": {"en": "× {n} layers", "zh": "× {n} 层"},
    "scope_once_short": {"en": "once per step", "zh": "每步一次"},
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
    "col_ttft": {"en": "TTFT, batch", "zh": "首 token（整批）"},
    "col_ttft1": {"en": "TTFT, 1 request", "zh": "首 token（单请求）"},
    "comparison_help": {
        "en": "TTFT, 1 request: one prompt arriving alone; TTFT, batch: the whole batch's prefill. In brackets: "
        "against the first accelerator, higher is better (for a time: how many times faster). Times are lower "
        "bounds.",
        "zh": "首 token（单请求）：单独到达的一个提示；首 token（整批）：整批的 prefill。括号内：相对第一个加速器的倍数，"
        "越大越好（时间列表示快几倍）。时间均为下限。",
    },
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
        "{bound} · time {time}<br>{detail}",
        "zh": "<b>{label}</b> · {hw}<br>{attainable}，算术强度 {intensity} FLOP/字节<br>FLOPs {flops} · 字节 {bytes}<br>"
        "{bound} · 时间 {time}<br>{detail}",
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
        "zh": "{hw} 显存不足：权重（{weights}）和 KV cache（{kv}）放得下，但整批的激活工作区（{act}）超出显存"
        "（{total} > {cap}）。{way}",
    },
    "way_tp": {"en": "The smallest tensor-parallel degree that fits is {n}.", "zh": "能放下的最小张量并行度是 {n}。"},
    "way_no_tp": {"en": "Not even 8-way tensor parallelism holds it.", "zh": "即使 8 卡张量并行也装不进显存。"},
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
    "insight_tie": {
        "en": "{hw1} and {hw2} decode at the same rate here ({tps} tokens/s).",
        "zh": "此时 {hw1} 与 {hw2} 的 decode 吞吐相同（{tps} token/s）。",
    },
    "insight_what_if": {
        "en": "{wi} against {ref}: {bw}x the bandwidth and {fl}x the tensor FLOP/s. Decode {decode} "
        "({dbound}); prefill {prefill} ({pbound}).",
        "zh": "{wi} 对比 {ref}：带宽为 {bw} 倍，张量算力为 {fl} 倍。decode {decode}（{dbound}）；"
        "prefill {prefill}（{pbound}）。",
    },
    "moves_not": {"en": "does not move", "zh": "不变"},
    "moves_faster": {"en": "runs {x}x as fast", "zh": "快到 {x} 倍"},
    "moves_slower": {"en": "runs at {x}x the speed", "zh": "降到 {x} 倍速度"},
    "what_if": {"en": "What-if accelerators", "zh": "假想加速器"},
    "what_if_none": {"en": "none yet", "zh": "暂无"},
    "what_if_type": {"en": "Define one by its numbers", "zh": "按参数定义"},
    "what_if_format": {
        "en": "name:bandwidth TB/s:bf16 TFLOP/s[:memory GB[:vector TFLOP/s]], e.g. fast:3.35:1979:80",
        "zh": "名称:带宽 TB/s:bf16 TFLOP/s[:显存 GB[:向量单元 TFLOP/s]]，例如 fast:3.35:1979:80",
    },
    "what_if_derive": {"en": "…or scale a real card", "zh": "……或缩放一张真实的卡"},
    "what_if_flops": {"en": "× FLOP/s", "zh": "× 算力"},
    "what_if_bw": {"en": "× bandwidth", "zh": "× 带宽"},
    "what_if_make": {"en": "Add scaled card", "zh": "添加缩放后的卡"},
    "what_if_limit": {
        "en": "At most {n} accelerators at once, what-ifs included.",
        "zh": "最多同时显示 {n} 个加速器（含假想加速器）。",
    },
    "add": {"en": "Add", "zh": "添加"},
    "pin": {"en": "Pin as A", "zh": "固定为 A"},
    "unpin": {"en": "Unpin", "zh": "取消固定"},
    "pinned_as": {
        "en": "A (the faded points): {scenario}. Change the controls to make B.",
        "zh": "A（淡色的点）：{scenario}。调整控件得到 B。",
    },
    "ghost_kind": {"en": "A (pinned, faded)", "zh": "A（已固定，淡色）"},
    "compare": {"en": "Pinned A against B", "zh": "固定的 A 对比 B"},
    "col_a": {"en": "A", "zh": "A"},
    "col_b": {"en": "B", "zh": "B"},
    "col_ratio": {"en": "B/A", "zh": "B/A"},
    "delta_tps": {"en": "decode tokens/s", "zh": "decode tokens/s"},
    "delta_step": {"en": "decode step", "zh": "decode 单步耗时"},
    "delta_ttft": {"en": "prefill of the batch (TTFT bound)", "zh": "整批 prefill（首 token 下限）"},
    "delta_kv": {"en": "KV cache per token", "zh": "每 token 的 KV cache"},
    "delta_maxb": {"en": "max batch", "zh": "最大批"},
    "delta_memory": {"en": "memory per GPU", "zh": "每卡显存"},
    "compare_on": {"en": "On {hw}.", "zh": "在 {hw} 上。"},
    "pin_same": {
        "en": "B is still the pinned scenario A: change a control to compare.",
        "zh": "B 仍与固定的 A 相同：调整任一控件即可对比。",
    },
    "insight_pin": {
        "en": "A → B ({changes}): decode {decode} ({bound}); the KV cache is now {kv} of the bytes each decode "
        "step moves (A: {kv_a}).",
        "zh": "A → B（{changes}）：decode {decode}（{bound}）；KV cache 现占每个 decode 步访存字节的 {kv}"
        "（A：{kv_a}）。",
    },
    "change_model": {"en": "model", "zh": "模型"},
    "change_precision": {"en": "weights/compute", "zh": "权重/计算精度"},
    "change_kv_precision": {"en": "KV cache", "zh": "KV cache 精度"},
    "change_kv_heads": {"en": "KV heads", "zh": "KV 头数"},
    "change_batch": {"en": "batch", "zh": "批大小"},
    "change_context": {"en": "context", "zh": "上下文"},
    "change_tensor_parallel": {"en": "TP", "zh": "张量并行"},
    "change_flash_attention": {"en": "FlashAttention", "zh": "FlashAttention"},
    "hierarchy_roofs": {"en": "Cache roofs (L2, where sourced)", "zh": "缓存 roofline（L2，有出处者）"},
    "cache_roof": {
        "en": "{name} · {level} roof {bw} ({kind}), {times}x HBM, for working sets up to {cap}",
        "zh": "{name} · {level} 带宽上限 {bw}（{kind}），HBM 的 {times} 倍，适用于不超过 {cap} 的工作集",
    },
    "no_cache_roof": {
        "en": "{hw}: no sourced cache bandwidth, so no cache roof is drawn.",
        "zh": "{hw}：没有有出处的缓存带宽数据，因此不画缓存 roofline。",
    },
    "insight_cache": {
        "en": "A decode step reads {bytes}, {times}x the largest cache with a roof on {hw} ({level}, {cap}): it "
        "streams from HBM, so the cache roof does not lift it. Cache roofs apply to ops whose working set fits, "
        "such as the op lab's small GEMVs.",
        "zh": "一个 decode 步要读 {bytes}，是 {hw} 上最大的有 roofline 的缓存（{level}，{cap}）的 {times} 倍："
        "数据只能从 HBM 流入，缓存 roofline 抬不高它。缓存 roofline 只适用于工作集放得下的算子，例如算子实验室里的小 GEMV。",
    },
    "level_l2": {"en": "L2", "zh": "L2"},
    "level_infinity_cache": {"en": "Infinity Cache", "zh": "Infinity Cache"},
    "hover_roof": {"en": "{pct} of the roof at this intensity", "zh": "达到该强度下 roofline 上限的 {pct}"},
    "hover_share": {"en": "{share} of the decode step's time", "zh": "占 decode 单步耗时的 {share}"},
    "scope_layers": {"en": "whole model: summed over {n} layers", "zh": "整个模型：{n} 层之和"},
    "scope_once": {"en": "once per step (not per layer)", "zh": "每步一次（不按层计）"},
    "scope_all_layers": {"en": "whole model: all layers", "zh": "整个模型：所有层"},
    "scope_decode": {"en": "whole model, one step of the batch", "zh": "整个模型，整批的一步"},
    "scope_prefill": {"en": "whole model, every prompt of the batch", "zh": "整个模型，整批全部提示"},
    "triage": {"en": "Profile triage", "zh": "性能剖析分诊"},
    "triage_help": {
        "en": "Imported kernels on {hw}, ranked by recoverable time (measured - roof time): the ones worth a deep "
        "Nsight Compute look first. Rows far from their roof (gap over 1.33x) are marked.",
        "zh": "在 {hw} 上导入的 kernel，按可挽回时间（实测 - roofline 时间）排序：最值得用 Nsight Compute 深挖的排在最前。"
        "离 roofline 较远（差距超过 1.33 倍）的行已标出。",
    },
    "triage_rank": {"en": "#", "zh": "#"},
    "triage_name": {"en": "kernel", "zh": "kernel"},
    "triage_time": {"en": "measured", "zh": "实测"},
    "triage_share": {"en": "share", "zh": "占比"},
    "triage_roof": {"en": "roof time", "zh": "roofline 时间"},
    "triage_gap": {"en": "gap", "zh": "差距"},
    "triage_recoverable": {"en": "recoverable", "zh": "可挽回"},
    "triage_regime": {"en": "regime", "zh": "瓶颈"},
    "triage_check": {"en": "check first", "zh": "先查"},
    "advice_memory": {
        "en": "achieved vs peak DRAM bandwidth (ncu dram__throughput), coalescing, L2 hit rate",
        "zh": "实测与峰值 DRAM 带宽之比（ncu dram__throughput）、访存合并、L2 命中率",
    },
    "advice_compute": {
        "en": "tensor-core use and the dtype (off the tensor cores, or in fp32, it sits far under the bf16 roof)",
        "zh": "是否用上张量核以及数据类型（不走张量核或用 fp32 时会远低于 bf16 上限）",
    },
    "advice_overhead": {
        "en": "launches per step (nsys CUDA trace): fuse small kernels, capture the step with CUDA graphs",
        "zh": "每步的 kernel 启动次数（nsys CUDA trace）：融合小 kernel，用 CUDA graphs 捕获整步",
    },
    "bound_overhead": {"en": "overhead-bound", "zh": "受启动开销限制"},
    "bound_memory": {"en": "memory-bound", "zh": "受带宽限制"},
    "bound_compute": {"en": "compute-bound", "zh": "受算力限制"},
    # ---- training lab (app/dashboard/lab_training.py, lab_training_figures.py) ----
    "lab_train_accelerator": {"en": "Accelerator (every GPU the same)", "zh": "加速器（每张卡相同）"},
    "lab_train_model": {"en": "Model", "zh": "模型"},
    "lab_train_teaching": {"en": "Teaching form (N, L, H, Q)", "zh": "教学形式（N、L、H、Q）"},
    "lab_train_n": {"en": "N, parameters (billions)", "zh": "N，参数量（十亿）"},
    "lab_train_layers": {"en": "L, layers", "zh": "L，层数"},
    "lab_train_heads": {"en": "H, attention heads", "zh": "H，注意力头数"},
    "lab_train_hdim": {"en": "Q, head dim", "zh": "Q，每头维度"},
    "lab_train_gpus": {"en": "GPUs (data parallel)", "zh": "GPU 数（数据并行）"},
    "lab_train_seq": {"en": "Sequence length T", "zh": "序列长度 T"},
    "lab_train_tokens": {"en": "Tokens per optimizer step (whole job)", "zh": "每个优化器步的 token 数（整个作业）"},
    "lab_train_measure": {"en": "Measured", "zh": "实测"},
    "lab_train_measure_step": {"en": "step time (s)", "zh": "步时（秒）"},
    "lab_train_measure_rate": {"en": "tokens/s (whole job)", "zh": "tokens/s（整个作业）"},
    "lab_train_optimizer": {"en": "Optimizer (mixed precision)", "zh": "优化器（混合精度）"},
    "lab_train_opt_adamw": {"en": "AdamW", "zh": "AdamW"},
    "lab_train_opt_sgd_momentum": {"en": "SGD + momentum", "zh": "SGD + 动量"},
    "lab_train_zero": {"en": "ZeRO stage", "zh": "ZeRO 阶段"},
    "lab_train_zero_0": {"en": "0 (DDP)", "zh": "0（DDP）"},
    "lab_train_zero_1": {"en": "1: optimizer", "zh": "1：优化器"},
    "lab_train_zero_2": {"en": "2: + gradients", "zh": "2：+ 梯度"},
    "lab_train_zero_3": {"en": "3: + weights", "zh": "3：+ 权重"},
    "lab_train_recompute": {"en": "Activation recomputation", "zh": "激活重计算"},
    "lab_train_rc_none": {"en": "none", "zh": "不重算"},
    "lab_train_rc_selective": {"en": "selective", "zh": "选择性"},
    "lab_train_rc_full": {"en": "full", "zh": "完全"},
    "lab_train_dtype": {"en": "Training dtype (fp32 master weights)", "zh": "训练精度（fp32 主权重）"},
    "lab_train_busbw": {"en": "Measured busbw, GB/s (blank: the link)", "zh": "实测 busbw，GB/s（留空：按互联）"},
    "lab_train_mb": {
        "en": "Micro-batch, sequences per GPU (blank: all, no accumulation)",
        "zh": "微批，每卡序列数（留空：全部，不累积）",
    },
    "lab_train_util_title": {"en": "Utilisation under each counting choice", "zh": "不同口径下的利用率"},
    "lab_train_memory_title": {"en": "Memory per GPU", "zh": "每卡显存"},
    "lab_train_comm_title": {"en": "Gradient all-reduce (DDP)", "zh": "梯度 all-reduce（DDP）"},
    "lab_train_spread": {
        "en": "One run, {k} numbers from {low} to {high}: say which one you report and what it counted.",
        "zh": "同一次训练，换个口径就是 {k} 个数字，从 {low} 到 {high}：报告时写明用的哪个、计了什么。",
    },
    "lab_train_scope": {
        "en": "Whole job: {gpus} × {hw}, {tps} tokens/s, step {step}; the percentages divide by all {gpus} GPUs' "
        "peak. Per GPU: {seqs} sequences of {seq} tokens per step, micro-batch {mb} ({k} accumulation steps).",
        "zh": "整个作业：{gpus} × {hw}，{tps} tokens/s，步时 {step}；百分比的分母是全部 {gpus} 张卡的峰值。"
        "每卡：每步 {seqs} 条 {seq} token 的序列，微批 {mb}（累积 {k} 步）。",
    },
    "lab_train_col_counting": {"en": "counting", "zh": "口径"},
    "lab_train_col_value": {"en": "utilisation", "zh": "利用率"},
    "lab_train_col_counted": {
        "en": "what was counted (per token, over which peak)",
        "zh": "计了什么（每 token，除以哪个峰值）",
    },
    "lab_train_row_mfu": {"en": "MFU", "zh": "MFU"},
    "lab_train_row_mfu_with_attention": {"en": "MFU with attention", "zh": "MFU（含注意力）"},
    "lab_train_row_hfu": {"en": "HFU", "zh": "HFU"},
    "lab_train_row_mfu_sparse_peak": {"en": "MFU over the sparse peak", "zh": "MFU（稀疏峰值）"},
    "lab_train_misleading": {"en": "misleading", "zh": "误导"},
    "lab_train_over": {"en": "Over {gpus} × {peak} dense {dtype}.", "zh": "分母：{gpus} × {peak} 稠密 {dtype}。"},
    "lab_train_counted_mfu": {
        "en": "6N = {dense} per token (PaLM); attention and recomputation not counted.",
        "zh": "每 token 6N = {dense}（PaLM）；不计注意力和重计算。",
    },
    "lab_train_counted_attn": {
        "en": "6N + 12·L·H·Q·T = {dense} + {attn} per token (PaLM appendix B, T = {seq}).",
        "zh": "每 token 6N + 12·L·H·Q·T = {dense} + {attn}（PaLM 附录 B，T = {seq}）。",
    },
    "lab_train_counted_hfu_none": {
        "en": "FLOPs executed: 6N, nothing recomputed (HFU = MFU); attention not counted.",
        "zh": "实际执行的 FLOPs：6N，没有重计算（HFU = MFU）；不计注意力。",
    },
    "lab_train_counted_hfu_selective": {
        "en": "FLOPs executed: 6N; selective recomputation re-runs only the attention core ({re} per token), "
        "not counted here.",
        "zh": "实际执行的 FLOPs：6N；选择性重计算只重跑注意力核心（每 token {re}），此处不计。",
    },
    "lab_train_counted_hfu_full": {
        "en": "FLOPs executed: 8N, full recomputation runs the forward twice (6N + 2N); attention not counted.",
        "zh": "实际执行的 FLOPs：8N，完全重计算把前向跑两遍（6N + 2N）；不计注意力。",
    },
    "lab_train_counted_sparse": {
        "en": "6N over the 2:4 structured-sparsity peak the spec sheet prints ({gpus} × {peak}, twice dense): "
        "misleading, a dense model never runs there.",
        "zh": "6N 除以规格表印的 2:4 结构化稀疏峰值（{gpus} × {peak}，稠密的两倍）：误导，稠密模型根本跑不到那里。",
    },
    "lab_train_counted_nosparse": {
        "en": "{vendor} prints no 2:4 sparse peak for {hw}.",
        "zh": "{vendor} 没有为 {hw} 公布 2:4 稀疏峰值。",
    },
    "lab_train_hfu_attn_note": {
        "en": "Counting attention and its recomputation as well, the FLOPs executed give {v} (HFU with attention).",
        "zh": "把注意力及其重计算也算上，实际执行的 FLOPs 得到 {v}（含注意力的 HFU）。",
    },
    "lab_train_mem_weights": {"en": "weights", "zh": "权重"},
    "lab_train_mem_gradients": {"en": "gradients", "zh": "梯度"},
    "lab_train_mem_optimizer": {"en": "optimizer state", "zh": "优化器状态"},
    "lab_train_mem_activations": {"en": "activations", "zh": "激活"},
    "lab_train_mem_this_run": {"en": "This run", "zh": "本次运行"},
    "lab_train_mem_fix_row": {"en": "Smallest change<br>that fits", "zh": "能放下的<br>最小改动"},
    "lab_train_does_not_fit": {"en": "does not fit", "zh": "显存不足"},
    "lab_train_capacity": {"en": "capacity {cap}", "zh": "容量 {cap}"},
    "lab_train_bytes_axis": {"en": "bytes per GPU", "zh": "每卡字节"},
    "lab_train_fits": {
        "en": "Fits: {total} per GPU of {cap} ({states} model states + {act} activations).",
        "zh": "放得下：每卡 {total}，容量 {cap}（模型状态 {states} + 激活 {act}）。",
    },
    "lab_train_over_states": {
        "en": "Does not fit: the model states alone ({states} per GPU, the {biggest} the largest part) exceed the "
        "{cap} of one {hw}.",
        "zh": "显存不足：仅模型状态（每卡 {states}，其中{biggest}最大）就超过了一张 {hw} 的 {cap}。",
    },
    "lab_train_over_acts": {
        "en": "Does not fit: the model states ({states} per GPU) fit, the activations ({act}) take the total to "
        "{total}, over the {cap}.",
        "zh": "显存不足：模型状态（每卡 {states}）装得下，加上激活（{act}）共 {total}，超过了 {cap}。",
    },
    "lab_train_fix": {
        "en": "Smallest change that fits: {change}; extra time per step: {extra}; {total} per GPU.",
        "zh": "能放下的最小改动：{change}；每步额外时间：{extra}；每卡 {total}。",
    },
    "lab_train_impossible": {
        "en": "MFU above 100%: the measured step time or tokens/s cannot be right for this model and peak.",
        "zh": "MFU 超过 100%：对这个模型和峰值而言，实测步时或 tokens/s 不可能成立。",
    },
    "lab_train_fix_note": {
        "en": "No ZeRO stage, recomputation or micro-batch fits: add GPUs, tensor or pipeline parallelism, or take "
        "a smaller model.",
        "zh": "任何 ZeRO 阶段、重计算或微批都装不进显存：增加 GPU、使用张量或流水线并行，或换更小的模型。",
    },
    "lab_train_fixes_title": {
        "en": "Changes that fit, cheapest first (recomputed FLOPs at the measured rate plus extra ZeRO traffic, "
        "not overlapped)",
        "zh": "能放下的改动，代价从小到大（重计算的 FLOPs 按实测速率计，加上额外的 ZeRO 通信，按不重叠计）",
    },
    "lab_train_col_change": {"en": "change", "zh": "改动"},
    "lab_train_col_per_gpu": {"en": "per GPU", "zh": "每卡"},
    "lab_train_col_extra": {"en": "extra time per step", "zh": "每步额外时间"},
    "lab_train_change_zero": {"en": "ZeRO-{z}", "zh": "ZeRO-{z}"},
    "lab_train_change_rc": {"en": "{rc} recomputation", "zh": "{rc}重计算"},
    "lab_train_change_mb": {"en": "micro-batch {mb} ({k} accumulation steps)", "zh": "微批 {mb}（累积 {k} 步）"},
    "lab_train_sep": {"en": ", ", "zh": "，"},
    "lab_train_act_note": {
        "en": "Activations (Korthikanti et al. 2022, 16-bit, recomputation: {rc}): {per_layer} per layer × {layers} "
        "layers at micro-batch {mb}; embeddings, output layer and loss not counted.",
        "zh": "激活（Korthikanti 等 2022，16 位，重计算：{rc}）：每层 {per_layer} × {layers} 层，微批 {mb}；"
        "不计嵌入层、输出层和损失。",
    },
    "lab_train_workspace": {
        "en": " Plus {ws} for one layer rematerialised during its backward.",
        "zh": "另加 {ws}：反向时重算出来的一层激活。",
    },
    "lab_train_one_gpu": {"en": "One GPU: no gradient all-reduce.", "zh": "单卡：没有梯度 all-reduce。"},
    "lab_train_busbw_given": {"en": "measured (given)", "zh": "实测值（输入）"},
    "lab_train_busbw_link": {"en": "{source}", "zh": "互联单向带宽，节点内 busbw 的上限（{source}）"},
    "lab_train_no_extra": {"en": "none", "zh": "无"},
    "lab_train_comm_grads": {
        "en": "Gradients all-reduced (N × 2 bytes, the whole model)",
        "zh": "all-reduce 的梯度（N × 2 字节，整个模型）",
    },
    "lab_train_comm_busbw": {"en": "Bus bandwidth: {source}", "zh": "总线带宽：{source}"},
    "lab_train_comm_time": {
        "en": "Ring all-reduce over {gpus} GPUs, once per optimizer step (no_sync)",
        "zh": "{gpus} 卡 ring all-reduce，每个优化器步一次（no_sync）",
    },
    "lab_train_comm_share": {
        "en": "Share of the step if none of it overlaps (upper bound)",
        "zh": "完全不重叠时占步时的比例（上限）",
    },
    "lab_train_comm_nosync": {
        "en": "Without no_sync(): one all-reduce per micro-batch ({k} per step)",
        "zh": "不用 no_sync()：每个微批一次（每步 {k} 次）",
    },
    "lab_train_comm_zero": {
        "en": "ZeRO-{z} communication per step (ZeRO-3: 1.5× DDP), share of the step",
        "zh": "ZeRO-{z} 每步通信（ZeRO-3 约为 DDP 的 1.5 倍），占步时比例",
    },
    "lab_train_comm_compute": {
        "en": "Compute time at least (step minus communication)",
        "zh": "计算时间至少（步时减去通信）",
    },
    "lab_train_comm_scope": {
        "en": "Every GPU takes part at once: these are times per optimizer step of the whole job.",
        "zh": "所有 GPU 同时参与：以上是整个作业每个优化器步的时间。",
    },
    "lab_train_error": {"en": "Cannot compute this run: {msg}", "zh": "无法计算这次运行：{msg}"},
    "lab_train_missing": {"en": "{field}: enter a value", "zh": "{field}：请填写"},
    "lab_train_invalid": {"en": "{field}: not a valid choice", "zh": "{field}：选择无效"},
    "lab_train_why_unknown": {"en": "not a parameter of the training lab", "zh": "不是训练实验室的参数"},
    "lab_train_why_int": {"en": "an integer from {low} to {high}", "zh": "应为 {low} 到 {high} 的整数"},
    "lab_train_why_num": {"en": "a number above 0, at most {high}", "zh": "应为大于 0、不超过 {high} 的数"},
    "lab_train_why_choice": {"en": "one of {options}", "zh": "可选：{options}"},
    "lab_train_why_model": {"en": "not a model preset (or teaching)", "zh": "不是模型预设（或 teaching）"},
    "lab_train_why_both": {
        "en": "give step or tok_s, not both: step is used",
        "zh": "step 与 tok_s 只能给一个：已用 step",
    },
    "lab_train_more_notices": {"en": "{n} more parameters ignored", "zh": "另有 {n} 个参数被忽略"},
    # ---- op lab (app/dashboard/lab_ops.py) ----
    "lab_ops_op": {"en": "Op", "zh": "算子"},
    "lab_ops_kind_gemm": {"en": "GEMM", "zh": "GEMM"},
    "lab_ops_kind_conv2d": {"en": "conv2d", "zh": "conv2d"},
    "lab_ops_kind_elementwise": {"en": "Elementwise chain", "zh": "逐元素算子链"},
    "lab_ops_kind_seed000": {"en": "Seed 000's chart", "zh": "种子 000 的图"},
    "lab_ops_m": {"en": "M", "zh": "M"},
    "lab_ops_n": {"en": "N", "zh": "N"},
    "lab_ops_k": {"en": "K", "zh": "K"},
    "lab_ops_tile": {"en": "Tile view (MxN or MxNxK)", "zh": "分块视图（MxN 或 MxNxK）"},
    "lab_ops_tile_field_help": {
        "en": "The intensity one thread-block tile sees; empty: off.",
        "zh": "单个线程块分块看到的算术强度；留空则关闭。",
    },
    "lab_ops_epilogue": {"en": "Epilogue", "zh": "尾处理（epilogue）"},
    "lab_ops_bias": {"en": "bias", "zh": "偏置"},
    "lab_ops_act_none": {"en": "no activation", "zh": "无激活"},
    "lab_ops_batch": {"en": "Batch", "zh": "批大小"},
    "lab_ops_height": {"en": "Height", "zh": "高"},
    "lab_ops_width": {"en": "Width", "zh": "宽"},
    "lab_ops_cin": {"en": "In channels", "zh": "输入通道"},
    "lab_ops_cout": {"en": "Out channels", "zh": "输出通道"},
    "lab_ops_kernel": {"en": "Kernel", "zh": "卷积核"},
    "lab_ops_stride": {"en": "Stride", "zh": "步长"},
    "lab_ops_padding": {"en": "Padding", "zh": "填充"},
    "lab_ops_groups": {"en": "Groups", "zh": "分组"},
    "lab_ops_shape": {"en": "Shape", "zh": "形状"},
    "lab_ops_ops": {"en": "Op list", "zh": "算子列表"},
    "lab_ops_count": {"en": "Repeats of the list", "zh": "列表重复次数"},
    "lab_ops_fusion": {"en": "Fusion", "zh": "融合"},
    "lab_ops_fused": {"en": "fused (one kernel)", "zh": "融合（一个 kernel）"},
    "lab_ops_fused_help": {
        "en": "Fused: the chain reads once and writes once; the GEMM does bias and activation in its epilogue. "
        "Both views are drawn either way.",
        "zh": "融合：整条链只读一次、写一次；GEMM 在 epilogue 里完成偏置和激活。两种视图都会画出。",
    },
    "lab_ops_dtype": {"en": "Dtype", "zh": "数据类型"},
    "lab_ops_overhead": {"en": "Launch overhead per kernel (µs)", "zh": "每个 kernel 的启动开销（µs）"},
    "lab_ops_overhead_help": {
        "en": "A kernel takes max(compute, memory, overhead): a tiny op is bound by overhead, which the roofs hide.",
        "zh": "一个 kernel 的时间取 max(计算, 访存, 开销)：小算子受启动开销限制，roofline 本身看不出来。",
    },
    "lab_ops_presets": {"en": "Presets", "zh": "预设"},
    "lab_ops_decode_of": {"en": "Decode projections of", "zh": "decode 投影矩阵，模型"},
    "lab_ops_views": {"en": "Side by side", "zh": "并排对比"},
    "lab_ops_results": {"en": "Per accelerator", "zh": "各加速器结果"},
    "lab_ops_kernels": {"en": "Kernels on the first accelerator", "zh": "第一个加速器上的 kernel"},
    "lab_ops_col_gpu": {"en": "Accelerator", "zh": "加速器"},
    "lab_ops_col_view": {"en": "View", "zh": "视图"},
    "lab_ops_col_kernel": {"en": "Kernel", "zh": "kernel"},
    "lab_ops_col_flops": {"en": "FLOPs", "zh": "浮点运算"},
    "lab_ops_col_bytes": {"en": "Bytes", "zh": "访存字节"},
    "lab_ops_col_intensity": {"en": "FLOP/byte", "zh": "FLOP/字节"},
    "lab_ops_col_time": {"en": "Time", "zh": "时间"},
    "lab_ops_col_compute": {"en": "Compute", "zh": "计算"},
    "lab_ops_col_memory": {"en": "Memory", "zh": "访存"},
    "lab_ops_col_overhead": {"en": "Overhead", "zh": "开销"},
    "lab_ops_col_bound": {"en": "Bound", "zh": "瓶颈"},
    "lab_ops_col_kernels": {"en": "Kernels", "zh": "kernel 数"},
    "lab_ops_col_convention": {"en": "Convention", "zh": "计法"},
    "lab_ops_bound_memory": {"en": "memory", "zh": "带宽"},
    "lab_ops_bound_compute": {"en": "compute", "zh": "算力"},
    "lab_ops_bound_overhead": {"en": "overhead", "zh": "启动开销"},
    "lab_ops_view_unfused": {"en": "unfused", "zh": "未融合"},
    "lab_ops_view_fused": {"en": "fused", "zh": "融合"},
    "lab_ops_view_gemm_unfused": {"en": "GEMM, then bias/activation kernels", "zh": "GEMM 后接偏置/激活 kernel"},
    "lab_ops_view_gemm_fused": {"en": "GEMM + fused epilogue", "zh": "GEMM + 融合 epilogue"},
    "lab_ops_view_direct": {"en": "direct", "zh": "直接计数"},
    "lab_ops_view_im2col": {"en": "im2col GEMM", "zh": "im2col GEMM"},
    "lab_ops_summary": {
        "en": "{name} on {hw}: {flops} over {bytes}, {intensity} FLOP/byte; bound by {bound}, {time} "
        "(compute {compute}, memory {memory}).",
        "zh": "{name} 在 {hw} 上：{flops}，访存 {bytes}，算术强度 {intensity} FLOP/字节；瓶颈：{bound}，{time}"
        "（计算 {compute}，访存 {memory}）。",
    },
    "lab_ops_tile_title": {"en": "Tile view: {m}x{n}, K step {k}", "zh": "分块视图：{m}x{n}，K 方向每步 {k}"},
    "lab_ops_tile_help": {
        "en": "One step of a tile's K loop ({tiles} tiles). Seed 003 §5.2's ≈32 for 128x128 is the first row; "
        "NVIDIA's ideal count (each value read once, written once) is the second.",
        "zh": "一个分块 K 循环的一步（共 {tiles} 个分块）。种子 003 §5.2 说 128x128 约 32，是第一行的计法；"
        "NVIDIA 的理想计数（每个值只读一次、写一次）是第二行。",
    },
    "lab_ops_tile_c_read_modify_write": {
        "en": "C read-modify-write (seed 003: ≈32)",
        "zh": "C 读-改-写（种子 003：约 32）",
    },
    "lab_ops_tile_read_once_write_once": {
        "en": "read once, write once (≈42.7)",
        "zh": "只读一次、只写一次（约 42.7）",
    },
    "lab_ops_tile_no_l2_reuse": {"en": "whole GEMM, no L2 reuse", "zh": "整个 GEMM，无 L2 复用"},
    "lab_ops_im2col_title": {"en": "im2col view", "zh": "im2col 视图"},
    "lab_ops_im2col": {
        "en": "As a GEMM: M = {m}, N = {n}, K = {k}, {groups} group(s); output {ho}x{wo}. The unrolled matrix "
        "holds {values} values, {expansion}x the input: the im2col kernel writes it and the GEMM reads it back.",
        "zh": "作为 GEMM：M = {m}，N = {n}，K = {k}，{groups} 组；输出 {ho}x{wo}。展开后的矩阵有 {values} 个值，"
        "是输入的 {expansion} 倍：im2col kernel 先写出它，GEMM 再读回来。",
    },
    "lab_ops_depthwise": {
        "en": "Depthwise: 2·k² FLOP per output against at least one value read and one written, so a 3x3 "
        "depthwise conv in bf16 does 18 FLOP per ≥ 4 bytes ≈ 4.5 FLOP/byte. Seed 003 §3.3 says ≈ 9: it counts "
        "the read and forgets the write. No channel reduction feeds the tensor cores: it runs on the vector units.",
        "zh": "深度可分离卷积：每个输出 2·k² FLOP，至少读一个值、写一个值，所以 bf16 的 3x3 depthwise 卷积是 "
        "18 FLOP 对 ≥ 4 字节，约 4.5 FLOP/字节。种子 003 §3.3 说约 9：它只算了读，忘了写。没有通道归约喂给张量核，"
        "它跑在向量单元上。",
    },
    "lab_ops_preset_gemm_8192": {"en": "GEMM 8192³ (seed 000)", "zh": "GEMM 8192³（种子 000）"},
    "lab_ops_preset_gemm_4096": {"en": "GEMM 4096³ (seed 003)", "zh": "GEMM 4096³（种子 003）"},
    "lab_ops_preset_gemv": {"en": "GEMV, M = 1", "zh": "GEMV，M = 1"},
    "lab_ops_preset_tile_128": {"en": "128x128 tile view", "zh": "128x128 分块视图"},
    "lab_ops_preset_gemm_bias_silu": {"en": "GEMM + bias + SiLU epilogue", "zh": "GEMM + 偏置 + SiLU epilogue"},
    "lab_ops_preset_depthwise_3x3": {"en": "Depthwise 3x3 conv", "zh": "3x3 depthwise 卷积"},
    "lab_ops_preset_chain_10": {"en": "10 elementwise ops (seed 003)", "zh": "10 个逐元素算子（种子 003）"},
    "lab_ops_preset_tiny_add": {"en": "Tiny add, 5 µs launch", "zh": "小 add，5 µs 启动开销"},
    "lab_ops_preset_seed000": {
        "en": "Seed 000's chart: GEMM + add + 7B decode",
        "zh": "种子 000 的图：GEMM + add + 7B decode",
    },
    "lab_ops_what_if_help": {
        "en": "An op's FLOPs, bytes and intensity are the same on every card; only the roofs move. Its bound changes only if the ridge moves past its intensity: doubling FLOP/s alone does not speed up a memory-bound op.",
        "zh": "算子的 FLOP、字节数和算术强度在每张卡上都相同，变的只是 roofline 上限。只有当脊点越过它的强度时瓶颈才会改变：只把算力翻倍，受带宽限制的算子不会变快。",
    },
}


# Why a link's parameter was ignored (url_state) and the engine's input errors, in Chinese:
# ordered (pattern, replacement) pairs, whole reasons first, then the fragments engine
# messages are built from. English text passes through unchanged.
REASONS_ZH: tuple[tuple[re.Pattern, str], ...] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"^unknown accelerator$", "未知的加速器"),
        (r"^unknown model$", "未知的模型"),
        (r"^unknown parameter$", "未知参数"),
        (r"^not an integer in (\S+)\.\.(\S+)$", r"不是 \1..\2 之间的整数"),
        (r"^not a positive integer$", "不是正整数"),
        (r"^0 or 1$", "应为 0 或 1"),
        (r"^1, 2, 4 or 8$", "应为 1、2、4 或 8"),
        (
            r"^nominal or measured, optionally with hierarchy \(measured,hierarchy\)$",
            "应为 nominal 或 measured，可附加 hierarchy（measured,hierarchy）",
        ),
        (r"^a fraction in 0\.01\.\.1$", "应为 0.01..1 之间的比例"),
        (r"^a measured decode step in ms$", "应为实测的 decode 单步耗时（毫秒）"),
        (r"^output tokens, an integer in 1\.\.(\S+)$", r"输出 token 数，应为 1..\1 之间的整数"),
        (r"^USD per GPU-hour, above 0 and at most (\S+)$", r"每 GPU 小时的美元价格，应大于 0 且不超过 \1"),
        (r"^en or zh$", "应为 en 或 zh"),
        (r"^light or dark$", "应为 light 或 dark"),
        (r"^at most (\d+) accelerators at once, what-ifs included$", r"最多同时显示 \1 个加速器（含假想加速器）"),
        (r"^at most (\d+) accelerators at once$", r"最多同时显示 \1 个加速器"),
        (r"^a custom model needs its config in cfg=$", "自定义模型需要在 cfg= 中给出配置"),
        (r"^an MLA model caches a latent, not KV heads$", "MLA 模型缓存的是潜向量，没有可设置的 KV 头"),
        (r"^must divide the (\d+) query heads$", r"必须整除 \1 个查询头"),
        (r"^must divide the (\d+) attention heads$", r"必须整除 \1 个注意力头"),
        (r"^a second what-if named (.+)$", r"已有同名的假想加速器 \1"),
        (r"^a scenario such as (.+)$", r"应为一个场景，例如 \1"),
        (r"^a pin holds only (.+)$", r"固定场景只能包含 \1"),
        (r"^one of (.+)$", r"应为以下之一：\1"),
        # fragments of engine messages (engine.errors: "field: message (allowed: ...)")
        (r" \(allowed: (.+)\)$", r"（允许：\1）"),
        (r"^bandwidth \(TB/s\) ", "带宽（TB/s）"),
        (r"^memory \(GB\) ", "显存（GB）"),
        (r"^name ", "名称 "),
        (r"'([^']*)' in '([^']*)'", r"'\1'（在 '\2' 中）"),
        (r", e\.g\. ", "，例如 "),
        (r"is not a number in", "不是以下范围内的数："),
        (r"has (\d+) part\(s\), not 3, 4 or 5", r"有 \1 段，应为 3、4 或 5 段"),
        (r"is a catalogue id; a what-if needs its own name", "是目录中的加速器 id；假想加速器需要自己的名字"),
        (
            r"must be 1-48 lower-case letters, digits, '\.' or single '-'",
            "必须为 1-48 个小写字母、数字、'.' 或单个 '-'",
        ),
        (r"lists no GPU-to-GPU link bandwidth", "没有列出 GPU 间互连带宽"),
        (r"is not a factor in \[0\.01, 100\]", "不是 [0.01, 100] 之间的倍数"),
        (
            r"^tokens_per_step: ([\d,]+) tokens is ([\d,]+) sequences per GPU per step",
            r"tokens_per_step：\1 个 token 即每卡每步 \2 条序列",
        ),
        (r"at most ([\d,]+) sequences per GPU per step", r"每卡每步最多 \1 条序列"),
        (r"does not divide", "不能整除"),
        (r"the weights alone", "仅权重"),
    )
)


def reason(text: str, lang: str) -> str:
    """A reason or an engine message in the page's language (see REASONS_ZH)."""
    if lang != "zh":
        return text
    for pattern, replacement in REASONS_ZH:
        text = pattern.sub(replacement, text)
    return text


def t(key: str, lang: str, **values: object) -> str:
    entry = STRINGS[key]
    text = entry.get(lang) or entry["en"]
    return text.format(**values) if values else text
