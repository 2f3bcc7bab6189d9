"""Every slide of every preset fits the projector (issue 30, item 5): on a real screen (Xvfb with
openbox) at 1280 x 720 and 1366 x 768, in English and in Chinese, a teacher opens each preset, presses
F5 and Right through every slide; on none of them is there a scroll bar that can scroll, a head's
plot, a colour bar, the lesson text, the title or the formula cut off or off the screen, two heads
over each other, an input left off, or digits under 14 px (tests/gui/slide_fit.py says how each is
measured).

One window process per size and language walks all the presets (tests/screen/probe_slides.py), so
the whole test costs four start-ups, not one per slide.
"""
from pathlib import Path

import pytest
from real_screen import RealScreen

pytestmark = pytest.mark.slow
HERE = Path(__file__).parent
SIZES = [(1280, 720), (1366, 768)]
ROOT = HERE.parents[1]
#: every slide of every preset: a slide a preset adds is checked without editing this file
PRESETS = sorted(p.stem for p in (ROOT / "resources" / "scenarios").glob("*.json"))


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_slide_of_every_preset_fits_the_screen(size, lang):
    with RealScreen(*size) as screen:
        report = screen.run_probe(HERE / "probe_slides.py", "--lang", lang, timeout=900)
    assert report["screen"] == list(size) and report["lang"] == lang
    # every preset walked, every one of its slides: at least the pipeline's 12 steps each (extras add slides)
    assert sorted(report["presets"]) == PRESETS
    assert all(n >= 12 for n in report["presets"].values()), report["presets"]
    assert report["checked"] == sum(report["presets"].values())
    lines = [f"{f['preset']} slide {f['slide']} ({f['step']}): {'; '.join(f['problems'][:4])}"
             for f in report["failures"]]
    assert report["fit"] == report["checked"], (
        f"{report['checked'] - report['fit']} of {report['checked']} slides do not fit {size[0]}x{size[1]} "
        f"({lang}):\n" + "\n".join(lines[:40]))
