"""HTTP: the release format by its own name, and the training dtype note."""


def test_model_detail_names_the_release_format(client):
    assert client.get("/api/v1/models/gpt-oss-20b").json()["native_format"] == "MXFP4"
    assert client.get("/api/v1/models/llama-3-8b").json()["native_format"] is None


def test_training_says_why_fp16_equals_bf16_on_h100(client):
    body = {
        "model": "llama-2-7b",
        "hardware": "h100-sxm5",
        "gpus": 8,
        "sequence_length": 4096,
        "tokens_per_step": 262144,
        "step_time_s": 10.0,
    }
    bf16 = client.post("/api/v1/training", json=body).json()
    fp16 = client.post("/api/v1/training", json=body | {"dtype": "fp16"}).json()
    assert bf16["mfu"] == fp16["mfu"] and bf16["memory"] == fp16["memory"]
    assert "share one dense peak" in fp16["dtype_note"] and "H100" in fp16["dtype_note"]
