"""Every CLI command that takes --model answers an unknown name with exit status 2 and a message
naming the known names nearest to it (engine.model_catalog.UnknownModelError), no traceback."""

import pytest

from app.cli import main

NEAREST = "unknown model id 'llama3-8b'; nearest known: llama-3-8b, llama-3.1-8b"
COMMANDS = {
    "analyze": ["analyze", "--hardware", "h100-sxm5"],
    "serving": ["serving", "--hardware", "h200-sxm"],
    "training": ["training", "--hardware", "h100-sxm5", "--gpus", "8", "--sequence-length", "4096"]
    + ["--tokens-per-step", "262144", "--step-time-s", "3.64"],
    "published": ["published"],
    "ops chart": ["ops", "chart", "--hardware", "h100-sxm5"],
    "ops presets": ["ops", "presets"],
}


@pytest.mark.parametrize("command", COMMANDS.values(), ids=list(COMMANDS))
def test_an_unknown_model_exits_2_naming_the_nearest_known_ones(command, capsys):
    assert main([*command, "--model", "llama3-8b"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("llm-roofline: error: " + NEAREST) and "Traceback" not in err


def test_a_measurement_file_with_an_unknown_model_names_the_nearest_too(tmp_path, capsys):
    table = tmp_path / "own.csv"
    table.write_text("name,flops,bytes,time_s\ngemm,1e12,1e9,0.001\n")
    args = ["measurements", str(table), "--format", "csv", "--hardware", "h100-sxm5", "--model", "llama3-8b"]
    assert main(args) == 2
    assert NEAREST in capsys.readouterr().err
