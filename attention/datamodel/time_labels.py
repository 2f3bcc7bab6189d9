"""Token labels for tokens that are time: PatchTST patches, iTransformer variates, dated steps.

Patches (TSL ``layers/Embed.py`` PatchEmbedding, MIT, thuml): the series of length L is padded
at the end by `padding` copies of its last value (ReplicationPad1d((0, padding)); PatchTST uses
padding = stride, Crossformer pads to a whole number of segments), then cut by
``unfold(size=patch_len, step=stride)``: patch p (from 0) covers steps p·stride …
p·stride + patch_len - 1, and there are (L + padding - patch_len) // stride + 1 patches.  The
label counts patches from 1 and writes the steps as the series numbers them (from `t0`, 0 by
default, as the code indexes the series): with patch_len 16 and stride 8 the third patch is
"patch 3 · t 16–31".  Steps at or past L are padding and say which real step they repeat.

Crossformer's segments are such patches too (`segment_labels`).

Variates (TSL ``DataEmbedding_inverted``, iTransformer): one token per variable, and when time
marks are passed, one more token per time feature after the variables (cat along that axis).

Dated steps: a start and a frequency in TSL's spelling (``--freq``: s secondly, t or min
minutely, h hourly, d daily, b business days, w weekly, m monthly, with an optional multiple:
"15min", "3h").  Business days skip Saturdays and Sundays (a weekend start moves to Monday, as
pandas' bdate_range); months keep the day, clamped to the month's length.

Bad input raises ValueError naming the field (start, freq, patch_len, stride, padding, names).
"""
from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Optional, Sequence

import attention.words as words
from attention.datamodel.numbers import position

# ---------------------------------------------------------------- PatchTST patches


@dataclass(frozen=True)
class PatchSpan:
    start: int  # first step, from 0
    end: int  # last step (inclusive)
    padded_from: Optional[int]  # first step that is padding, None when the patch is all real


def patch_count(seq_len: int, patch_len: int, stride: int, padding: int) -> int:
    """(L + padding - patch_len) // stride + 1, the patches unfold makes."""
    for name, value, low in (("seq_len", seq_len, 1), ("patch_len", patch_len, 1), ("stride", stride, 1),
                             ("padding", padding, 0)):
        if value < low:
            raise ValueError(f"{name} must be at least {low}, got {value}")
    if seq_len + padding < patch_len:
        raise ValueError(f"patch_len={patch_len} is longer than the padded series ({seq_len} + {padding})")
    return (seq_len + padding - patch_len) // stride + 1


def patch_spans(seq_len: int, patch_len: int, stride: int, padding: Optional[int] = None) -> list[PatchSpan]:
    """Every patch's steps; padding None means PatchTST's choice, padding = stride."""
    pad = stride if padding is None else padding
    spans = []
    for p in range(patch_count(seq_len, patch_len, stride, pad)):
        start = p * stride
        end = start + patch_len - 1
        spans.append(PatchSpan(start, end, seq_len if end >= seq_len else None))
    return spans


def patch_labels(seq_len: int, patch_len: int, stride: int, padding: Optional[int] = None, t0: int = 0,
                 lang: Optional[str] = None, noun: str = "patch") -> list[str]:
    """"patch 3 · t 16–31" for every patch; steps numbered from t0; noun "segment" for Crossformer."""
    out = []
    for p, span in enumerate(patch_spans(seq_len, patch_len, stride, padding)):
        args = dict(p=position(p), start=span.start + t0, end=span.end + t0)
        if span.padded_from is None:
            out.append(words.text(f"tsl.{noun}", lang, **args))
        else:
            out.append(words.text(f"tsl.{noun}_padded", lang, pad_start=span.padded_from + t0,
                                  last=seq_len - 1 + t0, **args))
    return out


def segment_labels(seq_len: int, seg_len: int = 12, t0: int = 0, lang: Optional[str] = None) -> list[str]:
    """Crossformer's segments: seg_len-step patches (seg_len 12 in TSL's model), the series padded at
    the end to a whole number of segments (PatchEmbedding with stride = seg_len, padding =
    ceil(L / seg_len)·seg_len - L)."""
    padding = -(-seq_len // seg_len) * seg_len - seq_len
    return patch_labels(seq_len, seg_len, seg_len, padding, t0, lang, noun="segment")


# ---------------------------------------------------------------- iTransformer variates


def variate_labels(n_vars: int, names: Optional[Sequence[str]] = None, n_time_features: int = 0,
                   lang: Optional[str] = None) -> list[str]:
    """One label per variate token: the names given (else "variable i"), then "time feature j"."""
    if names is not None:
        if len(names) != n_vars:
            raise ValueError(f"names has {len(names)} entries for {n_vars} variables")
        for i, name in enumerate(names):
            if not isinstance(name, str) or not name.strip():
                raise ValueError(f"names[{i}] must be a non-empty string, got {name!r}")
        labels = [name.strip() for name in names]
    else:
        labels = [words.text("tsl.variate", lang, i=position(i)) for i in range(n_vars)]
    return labels + [words.text("tsl.time_feature", lang, i=position(j)) for j in range(n_time_features)]


# ---------------------------------------------------------------- dated steps

_FREQ = re.compile(r"^\s*(\d*)\s*(min|s|t|h|d|b|w|m)\s*$", re.IGNORECASE)
_UNIT = {"s": "s", "t": "min", "min": "min", "h": "h", "d": "d", "b": "b", "w": "w", "m": "m"}
_STEP = {"s": timedelta(seconds=1), "min": timedelta(minutes=1), "h": timedelta(hours=1),
         "d": timedelta(days=1), "w": timedelta(weeks=1)}
_FORMAT = {"s": "%Y-%m-%d %H:%M:%S", "min": "%Y-%m-%d %H:%M", "h": "%Y-%m-%d %H:%M",
           "d": "%Y-%m-%d", "b": "%Y-%m-%d", "w": "%Y-%m-%d", "m": "%Y-%m"}


def parse_freq(freq: str) -> tuple[int, str]:
    """"15min" -> (15, "min"), "h" -> (1, "h"), "M" -> (1, "m")."""
    found = _FREQ.match(freq) if isinstance(freq, str) else None
    if not found:
        raise ValueError(f"freq {freq!r} is not a frequency: use s, t/min, h, d, b, w or m, "
                         "with an optional whole multiple such as 15min")
    count = int(found.group(1) or 1)
    if count < 1:
        raise ValueError(f"freq {freq!r}: the multiple must be at least 1")
    return count, _UNIT[found.group(2).lower()]


def parse_start(start: str | datetime) -> datetime:
    """ISO date or date-time ("2016-07-01", "2016-07-01 00:00:00")."""
    if isinstance(start, datetime):
        return start
    try:
        return datetime.fromisoformat(start.strip())
    except (ValueError, AttributeError):
        raise ValueError(f"start {start!r} is not a date: write it as 2016-07-01 or 2016-07-01 00:00") from None


def _add_months(d: datetime, months: int) -> datetime:
    y, m = divmod(d.month - 1 + months, 12)
    year, month = d.year + y, m + 1
    return d.replace(year=year, month=month, day=min(d.day, calendar.monthrange(year, month)[1]))


def _business_days(start: datetime, n: int, every: int) -> list[datetime]:
    d = start
    while d.weekday() >= 5:  # a weekend start rolls forward to Monday
        d += timedelta(days=1)
    out = [d]
    while len(out) < n:
        moved = 0
        while moved < every:
            d += timedelta(days=1)
            moved += d.weekday() < 5
        out.append(d)
    return out[:n]


def dated_steps(start: str | datetime, freq: str, n: int) -> list[datetime]:
    """The n dates of steps 0 … n - 1."""
    first = parse_start(start)
    count, unit = parse_freq(freq)
    if n < 0:
        raise ValueError(f"the number of steps must not be negative, got {n}")
    if unit == "b":
        return _business_days(first, n, count)
    if unit == "m":
        return [_add_months(first, i * count) for i in range(n)]
    return [first + i * count * _STEP[unit] for i in range(n)]


def date_labels(start: str | datetime, freq: str, n: int) -> list[str]:
    """Step labels written to the frequency's precision: "2016-07-01 03:00", "2016-07-01", "2016-07"."""
    unit = parse_freq(freq)[1]
    return [d.strftime(_FORMAT[unit]) for d in dated_steps(start, freq, n)]


def dated(sc, start: str, freq: str):
    """`sc` (a Scenario) with time_axis {start, freq} and its unlabelled query / key steps labelled with their
    dates (labels it already has, patches or variates, stay): what a scenario file's time_axis does on load."""
    import dataclasses

    q = sc.query_tokens if sc.query_tokens is not None else tuple(date_labels(start, freq, sc.queries.shape[1]))
    k = sc.key_tokens if sc.key_tokens is not None else tuple(date_labels(start, freq, sc.keys.shape[1]))
    return dataclasses.replace(sc, time_axis={"start": start, "freq": freq}, query_tokens=q, key_tokens=k)
