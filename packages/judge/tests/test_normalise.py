"""Normalisation before rule judging: each evasion folds onto the plain form."""

import sys
import unicodedata

import pytest
from judge.normalise import FORMAT_CHARACTERS, PINYIN, normalise, pinyin_key, strip_format
from judge.rules import FAMILIES


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("验\u200b证\u2060码", "验证码"),  # zero-width space, word joiner
        ("卡\ufeff号", "卡号"),  # zero-width no-break space (BOM)
        ("一\u200d定\u200c赔偿", "一定赔偿"),  # zero-width joiner and non-joiner
        ("密\u00ad码\u202e", "密码"),  # soft hyphen, bidi override
        ("ＣＶＶ", "cvv"),  # full-width letters
        ("\u0421VV", "cvv"),  # Cyrillic С
        ("\u2f00定赔偿", "一定赔偿"),  # Kangxi radical one
        ("己为您退款", "已为您退款"),  # 己 for 已
        ("驗證碼", "验证码"),  # traditional forms
        ("支 付 密 码", "支付密码"),  # spaces inside a word
        ("mìmǎ", "mima"),  # toned pinyin
        ("ＳＰ１００１", "sp1001"),
        ("您好，订单 SP1001 已发出。", "您好,订单sp1001已发出。"),
    ],
)
def test_normalise_folds_each_evasion(text: str, plain: str) -> None:
    assert normalise(text) == plain


def test_normalise_can_keep_spaces_between_words() -> None:
    assert normalise("Ignore\u200b  the ＲＵＢＲＩＣ", keep_spaces=True) == "ignore the rubric"


def test_strip_format_removes_only_invisible_characters() -> None:
    assert strip_format("a\u200bb\u2060c\ufeffd\ufe0f e") == "abcd e"


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("验证码", "yanzhengma"),
        ("yan zheng ma", "yanzhengma"),
        ("验证ma", "yanzhengma"),
        ("mi3 ma3", "mima"),  # tone numbers dropped
        ("ni zi ji", "niziji"),
        ("你自己", "niziji"),  # 己 is read as ji, not folded to 已 (yi)
        ("已为您tui-kuan", "yiweinintuikuan"),
        ("驗證碼", "yanzhengma"),  # traditional forms have their simplified reading
        ("包裹", "包裹"),  # characters outside the rules stay as they are
    ],
)
def test_pinyin_key_spells_rule_characters(text: str, key: str) -> None:
    assert pinyin_key(text) == key


def test_every_rule_character_has_a_pinyin_spelling() -> None:
    characters = {c for phrases in FAMILIES.values() for p in phrases for c in normalise(p)}
    missing = {c for c in characters if "\u4e00" <= c <= "\u9fff" and c not in PINYIN}
    assert not missing


def test_every_format_character_is_known() -> None:
    every = {chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"}
    assert every == FORMAT_CHARACTERS
    assert {"\u200b", "\u200d", "\u2060", "\ufeff", "\u00ad", "\U000e0041"} <= FORMAT_CHARACTERS
