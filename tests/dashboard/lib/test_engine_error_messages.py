"""Real engine errors (an unknown model or accelerator, a bad accelerator file or mapping, a
measured-serving row that does not map) said from their code in English and in Chinese, with the
parameters the error itself carries: the field named, the values shown, no brace left."""

import re

import pytest

from app.dashboard.lib.i18n import CATALOGUES, reason
from engine.errors import EngineInputError
from engine.hardware import get_accelerator, load_file, parse_accelerator
from engine.metrics import ring_allreduce_time_s
from engine.model_catalog import get_model
from engine.serving.mapping import row_scenario

from .test_i18n import untranslated

H100 = get_accelerator("h100-sxm5").model_dump()


def raised(call) -> EngineInputError:
    with pytest.raises(EngineInputError) as caught:
        call()
    return caught.value


def test_an_unknown_model_names_the_nearest_known_ones_in_both_languages():
    error = raised(lambda: get_model("llama3-8b"))
    assert error.code == "unknown_model" and error.params["nearest"].startswith("llama-3-8b, llama-3.1-8b")
    en, zh = reason(error, "en"), reason(error, "zh")
    assert en == f"model: {error}"
    assert zh.startswith("model：未知的模型 id 'llama3-8b'；最接近的已知名称：llama-3-8b, llama-3.1-8b")


@pytest.mark.parametrize(
    ("call", "code", "shown"),
    [
        (lambda: get_accelerator("h1000"), "unknown_hardware", "'h1000'"),
        (lambda: parse_accelerator([1], "xhw"), "hw_not_mapping", "xhw"),
        (lambda: parse_accelerator({k: v for k, v in H100.items() if k != "name"}, "xhw"), "schema_missing", "name"),
        (lambda: parse_accelerator(H100 | {"colour": "red"}, "xhw"), "schema_extra", "colour"),
        (lambda: parse_accelerator(H100 | {"memory_bytes": -1}, "xhw"), "schema_bound", ">= 1e+06"),
        (lambda: parse_accelerator(H100 | {"memory_bytes": "lots"}, "xhw"), "schema_invalid", "lots"),
        (lambda: ring_allreduce_time_s(1.0, 1e9, 0), "at_least", "num_ranks"),
        (lambda: row_scenario({"system": "h800"}), "map_system", "'h800'"),
        (lambda: row_scenario({"system": "h100_sxm", "gemm_quant_mode": "int2"}), "map_quant", "'int2'"),
    ],
)
def test_engine_errors_are_said_from_their_own_params(call, code, shown):
    error = raised(call)
    assert error.code == code and f"engine_{code}" in CATALOGUES["zh"]
    en, zh = reason(error, "en"), reason(error, "zh")
    for text in (en, zh):
        assert error.params["field"] in text and shown in text and not re.search(r"\{[a-z_]+\}", text), text
    assert not untranslated(re.sub(r"'[^']*'|\S*_\S*|\S*\.\S*", "", zh.split("：", 1)[1])) - {"id", "e"}, zh


def test_an_accelerator_file_that_is_not_yaml_is_said_in_both_languages(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_bytes(b"id: [unclosed\n")
    error = raised(lambda: load_file(path))
    assert error.code == "yaml_invalid" and error.params["field"] == str(path)
    assert reason(error, "zh").startswith(f"{path}：不是有效的 YAML（原文 '")
    path.write_bytes(b"\xff\xfe")
    assert raised(lambda: load_file(path)).code == "file_utf8"
