"""The roofline page's files in and out: a custom config.json, a measurements profile, the
HTML snapshot and the ops table as CSV or JSON. Module-level callbacks, keyword inputs."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import replace

from dash import Input, Output, State, html, no_update

from app.dashboard.lib.i18n import reason, t
from app.dashboard.pages.roofline.callbacks import CALLBACKS, FLAGS, _lang
from app.dashboard.pages.roofline.config_link import MAX_CONFIG_TOKEN_CHARS, encode_config
from app.dashboard.pages.roofline.controls_state import MAX_MEASURED_STEPS, view_from_controls, view_states
from app.dashboard.pages.roofline.exports import ops_csv, snapshot_html
from app.dashboard.pages.roofline.rows import ops_rows
from app.dashboard.pages.roofline.state import export_name, hardware_specs
from app.dashboard.pages.roofline.views import provenance, roofline, subtitle, view_data
from app.dashboard.pages.roofline.widgets import measured_on_options
from app.units import count
from engine.errors import EngineInputError
from engine.measurement import FORMATS, parse_measurements
from engine.model_catalog import MAX_CONFIG_BYTES, load_model


def upload_text(contents) -> str:
    """A dcc.Upload data URL -> its text (ValueError if it is not UTF-8 text)."""
    if not isinstance(contents, str) or "," not in contents:
        raise ValueError("not an uploaded file")
    try:
        return base64.b64decode(contents.split(",", 1)[1], validate=False).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise ValueError("not a UTF-8 text file") from None


def _config_from_text(text: str) -> dict:
    """config.json text -> its dict (ValueError with what is wrong, for the user)."""
    if len(text.encode("utf-8", "ignore")) > MAX_CONFIG_BYTES:
        raise ValueError(f"config.json: larger than {MAX_CONFIG_BYTES // 1024} KiB")
    try:
        config = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"config.json: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    except RecursionError:
        raise ValueError("config.json: nested too deeply") from None
    if not isinstance(config, dict):
        raise ValueError("config.json: must be a JSON object")
    return config


@CALLBACKS.server(
    output={"custom": Output("custom-model", "data"), "error": Output("custom-error", "children")},
    inputs={"apply": Input("custom-apply", "n_clicks"), "upload": Input("custom-upload", "contents")},
    state={"pasted": State("custom-config", "value"), "flags": FLAGS},
)
def load_custom(apply: object, upload: object, pasted: object, flags: object, trigger: object = None) -> dict:
    lang = _lang(flags)
    try:
        text = upload_text(upload) if trigger == "custom-upload" else (pasted if isinstance(pasted, str) else "")
    except ValueError:
        return {"custom": no_update, "error": "config.json: not UTF-8 JSON"}
    try:
        config = _config_from_text(text)
        model = load_model(config)
    except (ValueError, EngineInputError) as exc:  # EngineInputError names the field
        return {"custom": no_update, "error": reason(exc, lang)}  # from its code where it has one
    token = encode_config(config)
    message = t("custom_ok", lang, name=model.id, params=count(model.num_params))
    if len(token) > MAX_CONFIG_TOKEN_CHARS:
        message += " " + t("custom_no_link", lang, n=f"{len(token):,}", limit=f"{MAX_CONFIG_TOKEN_CHARS:,}")
        token = None
    # a success is said in the text colour, not in the error's red (its box also carries errors)
    return {"custom": {"config": config, "token": token}, "error": html.Span(message, className="status-ok")}


def measured_on_choice(hardware: object, what_if: object, wanted: object) -> tuple[list[dict], str | None]:
    """The "measured on" options for the accelerators chosen, and the one to show: `wanted`
    while it is still among them, else the first."""
    specs = [*(hardware if isinstance(hardware, list) else []), *(what_if if isinstance(what_if, list) else [])]
    options = measured_on_options(specs)
    ids = [o["value"] for o in options]
    return options, wanted if wanted in ids else (ids[0] if ids else None)


def named_card(records: list, options: list[dict]) -> tuple[str | None, str | None]:
    """(the accelerator drawn that the file names, the name as the file writes it): our own CSV
    and JSON carry a `hardware` column (engine.measurement). A file naming several machines
    names none."""
    named = {r.hardware.strip() for r in records if getattr(r, "hardware", None)}
    if len(named) != 1:
        return None, None
    name = named.pop()
    match = next((o["value"] for o in options if name.lower() in (o["value"].lower(), str(o["label"]).lower())), None)
    return match, name


def _follow_accelerators(hardware, what_if, on, current, previous) -> dict:
    """The accelerators changed: the choice follows them (an accelerator picked after the first
    while it stays; the first, the default, stays the first) and a loaded profile moves with it."""
    was_first = isinstance(previous, list) and previous and isinstance(previous[0], dict) and previous[0].get("value")
    options, chosen = measured_on_choice(hardware, what_if, None if on == was_first else on)
    loaded = isinstance(current, dict) and current.get("format")
    return {
        "measurements": {**current, "on": chosen} if loaded and current.get("on") != chosen else no_update,
        "status": no_update,
        "on_options": options,
        "on": chosen if chosen != on else no_update,
    }


@CALLBACKS.server(
    output={
        "measurements": Output("measurements", "data"),
        "status": Output("measurements-status", "children"),
        "on_options": Output("measurements-on", "options"),
        "on": Output("measurements-on", "value"),
    },
    inputs={
        "upload": Input("measurements-upload", "contents"),
        "steps": Input("measurements-steps", "value"),
        "on": Input("measurements-on", "value"),
        "hardware": Input("hardware", "value"),
        "what_if": Input("what-if", "value"),
    },
    state={
        "fmt": State("measurements-format", "value"),
        "current": State("measurements", "data"),
        "previous": State("measurements-on", "options"),
        "flags": FLAGS,
    },
)
def load_measurements(
    upload: object,
    steps: object,
    on: object,
    hardware: object,
    what_if: object,
    fmt: object,
    current: object,
    flags: object,
    previous: object = None,
    trigger=None,
) -> dict:
    """An uploaded profile, parsed and kept with its steps and the accelerator it was measured
    on: the one the file names where it is drawn, else the one chosen beside the import."""
    lang = _lang(flags)
    unchanged = {"on_options": no_update, "on": no_update}
    if trigger in ("hardware", "what-if"):
        return _follow_accelerators(hardware, what_if, on, current, previous)
    kept = isinstance(current, dict) and current.get("format")
    if trigger == "measurements-on":
        chosen = measured_on_choice(hardware, what_if, on)[1]
        update = {**current, "on": chosen} if kept and chosen == on and current.get("on") != on else no_update
        return {"measurements": update, "status": no_update, **unchanged}
    ok = isinstance(steps, int) and not isinstance(steps, bool) and 1 <= steps <= MAX_MEASURED_STEPS
    steps = steps if ok else 1
    if trigger == "measurements-steps":
        return {"measurements": {**current, "steps": steps} if kept else no_update, "status": no_update, **unchanged}
    if fmt not in FORMATS:
        return {
            "measurements": no_update,
            "status": html.Span(f"format: one of {', '.join(FORMATS)}", className="error"),
            **unchanged,
        }
    try:
        text = upload_text(upload)
        records = parse_measurements(fmt, text, steps)  # validated whole before it is kept
    except ValueError as exc:
        return {"measurements": {}, "status": html.Span(reason(exc, lang), className="error"), **unchanged}
    options, chosen = measured_on_choice(hardware, what_if, on)
    match, name = named_card(records, options)
    status = [t("measurements_loaded", lang, n=len(records))]
    if name:  # the file says where it was measured: drawn there, or said why not
        label = next((str(o["label"]) for o in options if o["value"] == match), name)
        status.append(t("measured_on_named", lang, hw=label) if match else t("measured_on_other", lang, named=name))
    on_card = match or chosen
    return {
        "measurements": {"format": fmt, "content": text, "steps": steps, "on": on_card},
        "status": " ".join(status),
        "on_options": no_update,
        "on": on_card if on_card != on else no_update,
    }


@CALLBACKS.server(
    output=Output("download-html", "data"),
    inputs={"clicks": Input("export-html", "n_clicks")},
    state={"controls": view_states()},
)
def export_html(clicks: object, controls: dict) -> dict:
    """The snapshot is drawn from the server's own view of the scenario, never from a figure
    the client sends (a client-sent figure made pio.to_html a denial of service)."""
    view = view_from_controls(controls)
    figure, _grid = roofline(view)
    facts = provenance(view)
    text = snapshot_html(
        figure,
        subtitle(view, view.batch, view.context),
        facts["link"],
        f"{facts['app']} · catalogue {facts['catalogue']}",
    )
    return {"content": text, "filename": export_name(view, "roofline") + ".html", "type": "text/html"}


@CALLBACKS.server(
    output=Output("download-ops", "data"),
    inputs={"as_json": Input("ops-json", "n_clicks"), "as_csv": Input("ops-csv", "n_clicks")},
    state={"hardware_id": State("ops-gpu", "value"), "phase": State("ops-phase", "value"), "controls": view_states()},
)
def export_ops(as_json: object, as_csv: object, hardware_id: object, phase: object, controls: dict, trigger=None):
    """The ops shown (accelerator and phase) with the scenario, app version and catalogue."""
    view = view_from_controls(controls)
    phase = phase if phase in ("decode", "prefill") else "decode"
    try:
        results = view_data(view)["analysis"]["results"] if hardware_specs(view) else []
    except EngineInputError:
        return no_update
    if not results:
        return no_update
    shown = next((r for r in results if r["hardware_id"] == hardware_id), results[0])
    facts = {**provenance(view), "hardware": shown["hardware_name"], "phase": phase}
    rows = ops_rows(shown, "en", phase)
    # the file holds one accelerator's ops: it is named after that one, not the whole view
    name = export_name(replace(view, hardware=(shown["hardware_id"],)), f"{phase}-ops")
    if trigger == "ops-csv":
        return {"content": ops_csv(rows, facts), "filename": name + ".csv", "type": "text/csv"}
    return {
        "content": json.dumps({**facts, f"{phase}_ops": rows}, indent=2, ensure_ascii=False),
        "filename": name + ".json",
        "type": "application/json",
    }
