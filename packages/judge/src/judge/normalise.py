"""Text normalisation before rule judging: match what the customer reads, not its encoding.

A keyword rule looks for ``验证码``; a reply can write ``验\u200b证码`` (a zero-width space),
``ＣＶＶ`` (full-width), ``СVV`` (a Cyrillic С), ``己为您退款`` (己 for 已), ``驗證碼``
(traditional), ``验 证 码`` (spaces) or ``yanzhengma`` (pinyin), and the customer reads the
same words. ``normalise`` folds all but the last onto one form (apply it to the reply and
to the phrase alike); ``pinyin_key`` spells the characters of the rule phrases in toneless
pinyin, so a phrase matches whether it is written in characters, in pinyin or in a mix.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Mapping
from functools import cache

import opencc

_FORMAT_PLANES = (range(0x0000, 0x20000), range(0xE0000, 0xE1000))
"""Where the format characters are: the first two planes and plane 14 (tag characters);
scanning only these keeps the import fast (a test checks against every code point)."""

FORMAT_CHARACTERS: frozenset[str] = frozenset(
    chr(code)
    for plane in _FORMAT_PLANES
    for code in plane
    if unicodedata.category(chr(code)) == "Cf"
)
"""Invisible format characters (zero-width space and joiners, word joiner, BOM, bidi marks...)."""

_VARIATION_SELECTORS = frozenset(chr(c) for c in (*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)))

CONFUSABLES: Mapping[str, str] = {
    # Cyrillic and Greek letters that look like Latin ones (after casefolding).
    **dict(zip("аеорсухкмтвнідјѕԁԛԝ", "aeopcyxkmtbhidjsdqw", strict=True)),
    **dict(zip("οαντρκιυεςχ", "oavtpkiuesx", strict=True)),
    # Chinese look-alikes and variants of the characters the rules look for.
    "己": "已", "巳": "已", "為": "为", "賠": "赔", "償": "偿", "證": "证", "額": "额",
    "責": "责", "們": "们", "關": "关", "係": "系", "碼": "码", "驗": "验", "號": "号",
    "別": "别", "沒": "没", "愛": "爱", "宻": "密",
}  # fmt: skip
"""Look-alike -> the character the rules are written with (NFKC handles full-width forms,
Kangxi radicals and compatibility ideographs before this table applies)."""

PINYIN: Mapping[str, str] = {
    "已": "yi", "为": "wei", "您": "nin", "退": "tui", "款": "kuan", "一": "yi",
    "定": "ding", "赔": "pei", "偿": "chang", "保": "bao", "证": "zheng", "全": "quan",
    "额": "e", "你": "ni", "自": "zi", "不": "bu", "是": "shi", "我": "wo", "们": "men",
    "的": "de", "责": "ze", "任": "ren", "别": "bie", "再": "zai", "看": "kan", "懂": "dong",
    "跟": "gen", "没": "mei", "关": "guan", "系": "xi", "爱": "ai", "等": "deng",
    "密": "mi", "码": "ma", "验": "yan", "卡": "ka", "号": "hao", "己": "ji",
}  # fmt: skip
"""Toneless pinyin of every character in the rule phrases (a test keeps it complete);
look-alikes are read as what they look like only when they have no entry (己 is "ji")."""

_PINYIN_DROPPED = frozenset("0123456789-'·")
"""Dropped from a pinyin key: tone numbers and syllable separators."""


def strip_format(text: str) -> str:
    """``text`` without invisible format characters and variation selectors."""
    return "".join(c for c in text if c not in FORMAT_CHARACTERS and c not in _VARIATION_SELECTORS)


@cache
def _simplifier() -> opencc.OpenCC:
    return opencc.OpenCC("t2s")


def simplified(text: str) -> str:
    """``text`` with traditional Chinese written in simplified characters (OpenCC's
    ``t2s``): the rules and cues are written once, in simplified Chinese."""
    return str(_simplifier().convert(text))


def unescaped(text: str) -> str:
    """``text`` as a browser or a model would read its character references:
    ``&lt;/reply&gt;`` is ``</reply>`` (twice unescaped: ``&amp;lt;`` too)."""
    return html.unescape(html.unescape(text))


_BETWEEN_WORDS = re.compile(r"[\W_]+")
"""Anything that is neither a letter nor a digit (punctuation, symbols, separators)."""


def joined(text: str) -> str:
    """``normalise(text)`` without punctuation or symbols: a phrase split by separators
    (``验·证·码``, ``卡-号``) reads as one word again."""
    return _BETWEEN_WORDS.sub("", normalise(text))


def normalise(text: str, *, keep_spaces: bool = False, fold_lookalikes: bool = True) -> str:
    """Character references read, NFKC, no invisible characters, no accents, casefolded,
    traditional characters simplified, look-alikes mapped (unless ``fold_lookalikes`` is
    false) and (unless ``keep_spaces``) no whitespace: Chinese needs none between words,
    so spaces inside a word are an evasion, not a separator."""
    text = unicodedata.normalize("NFKC", strip_format(unescaped(text)))  # full-width, Kangxi
    text = simplified(text)
    text = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
    text = unicodedata.normalize("NFC", text).casefold()  # accents gone: mìmǎ -> mima
    if fold_lookalikes:
        text = "".join(CONFUSABLES.get(c, c) for c in text)
    if keep_spaces:
        return " ".join(text.split())
    return "".join(text.split())


def pinyin_key(text: str) -> str:
    """``normalise(text)`` with the rule characters spelled in pinyin, Latin letters kept,
    tone numbers and separators dropped; any other character stays as it is, so it still
    separates the words around it."""
    spelled = []
    for c in normalise(text, fold_lookalikes=False):
        if c in _PINYIN_DROPPED:
            continue
        folded = CONFUSABLES.get(c, c)
        spelled.append(PINYIN.get(c) or PINYIN.get(folded) or folded)
    return "".join(spelled)
