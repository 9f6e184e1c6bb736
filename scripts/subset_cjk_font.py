"""Renew assets/fonts/noto-sans-sc-subset.woff2: Noto Sans SC (SIL Open Font License 1.1) cut down
to the CJK characters the dashboard can show, so a machine without a CJK font draws the zh page,
the 简体中文 switch and every exported image without boxes.

    .venv/bin/pip install fonttools brotli      # (the `test` extra has them)
    .venv/bin/python scripts/subset_cjk_font.py [source.woff2]

The source is the "chinese-simplified" slice of @fontsource/noto-sans-sc (npm, pinned below),
fetched with `npm pack` into a temporary folder when no path is given. The characters are every
CJK character, CJK punctuation and full-width form in the catalogues (app/dashboard/**/locales/
zh.json) and in the dashboard's Python and JavaScript (the 中文 of the language switch): the
same inputs give the same file. tests/dashboard/test_cjk_font.py fails when a catalogue gains a
character the subset lacks. The licence is copied beside the font.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "assets" / "fonts"
FONT = OUT / "noto-sans-sc-subset.woff2"
LICENSE = OUT / "OFL.txt"
PACKAGE = "@fontsource/noto-sans-sc@5.3.0"
SOURCE_FILE = "package/files/noto-sans-sc-chinese-simplified-400-normal.woff2"
# Where the dashboard's words live: the catalogues, and the few written in code.
TEXT_FILES = ("app/dashboard/**/locales/zh.json", "app/dashboard/**/*.py", "assets/*.js")


def is_cjk(ch: str) -> bool:
    """A character a Latin system font lacks: CJK ideographs, their punctuation, full-width forms."""
    code = ord(ch)
    return (
        0x2E80 <= code <= 0x9FFF  # radicals, CJK symbols and punctuation, kana, unified ideographs
        or 0xF900 <= code <= 0xFAFF  # compatibility ideographs
        or 0xFE30 <= code <= 0xFE4F  # compatibility forms
        or 0xFF00 <= code <= 0xFFEF  # full-width forms: ，（）：
    )


def characters(root: Path = ROOT) -> str:
    """Every CJK character the dashboard's files hold, sorted: the subset's input."""
    seen: set[str] = set()
    for pattern in TEXT_FILES:
        for path in sorted(root.glob(pattern)):
            seen |= {ch for ch in path.read_text(encoding="utf-8") if is_cjk(ch)}
    return "".join(sorted(seen))


def fetch_source(folder: Path) -> tuple[Path, Path]:
    """The pinned npm package's source font and licence, unpacked into `folder`."""
    subprocess.run(["npm", "pack", PACKAGE, "--silent"], cwd=folder, check=True, stdout=subprocess.DEVNULL)  # noqa: S607
    tgz = next(folder.glob("*.tgz"))
    with tarfile.open(tgz) as tar:
        tar.extractall(folder, filter="data")
    return folder / SOURCE_FILE, folder / "package" / "LICENSE"


def subset(source: Path, text: str, out: Path) -> None:
    from fontTools import subset as ft_subset

    options = ft_subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]
    options.name_IDs = ["*"]  # the copyright and licence records stay in the font
    options.notdef_outline = True
    font = ft_subset.load_font(str(source), options)
    subsetter = ft_subset.Subsetter(options)
    subsetter.populate(text=text)
    subsetter.subset(font)
    out.parent.mkdir(parents=True, exist_ok=True)
    ft_subset.save_font(font, str(out), options)


def main(argv: list[str]) -> int:
    text = characters()
    with tempfile.TemporaryDirectory() as tmp:
        if argv:
            source, license_file = Path(argv[0]), Path(argv[0]).parent.parent / "LICENSE"
        else:
            source, license_file = fetch_source(Path(tmp))
        subset(source, text, FONT)
        shutil.copyfile(license_file, LICENSE)
    print(f"{FONT.relative_to(ROOT)}: {len(text)} characters, {FONT.stat().st_size / 1024:.0f} KiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
