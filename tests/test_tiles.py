import pytest

from laizi.tiles import (
    TileParseError,
    count_vector,
    format_counts,
    format_tile,
    format_tiles,
    parse_tile,
    parse_tiles,
    tile_glyph,
    tile_name,
    tiles_of,
)


def test_ids_follow_the_notation_order():
    assert [format_tile(tile) for tile in (0, 8, 9, 17, 18, 26, 27, 33)] == [
        "1m",
        "9m",
        "1p",
        "9p",
        "1s",
        "9s",
        "1z",
        "7z",
    ]


def test_groups_in_any_order_parse_to_the_same_tiles():
    assert (
        sorted(parse_tiles("7z123m55p"))
        == sorted(parse_tiles("123m55p7z"))
        == [0, 1, 2, 13, 13, 33]
    )


def test_repeated_suit_groups_and_spaces_are_allowed():
    assert parse_tiles("12m 3m") == [0, 1, 2]


def test_zero_is_no_tile():
    assert parse_tiles("0") == []
    assert parse_tiles("") == []
    assert format_tiles([]) == "0"


def test_format_sorts_and_groups():
    assert format_tiles([33, 0, 13, 1, 2, 13]) == "123m55p7z"
    assert format_counts(count_vector(parse_tiles("99s11m"))) == "11m99s"


@pytest.mark.parametrize(
    ("text", "position", "char"),
    [
        ("12x", 2, "x"),
        ("8z", 0, "8"),
        ("m", 0, "m"),
        ("123", 0, "1"),
        ("10m", 1, "0"),
        ("1m,2m", 2, ","),
    ],
)
def test_errors_name_the_bad_character_and_its_position(text, position, char):
    with pytest.raises(TileParseError) as caught:
        parse_tiles(text)
    assert caught.value.position == position
    assert caught.value.char == char
    assert f"position {position}" in str(caught.value)


def test_parse_tile_wants_exactly_one():
    assert parse_tile("5m") == 4
    with pytest.raises(TileParseError):
        parse_tile("55m")


def test_count_vector_rejects_a_fifth_copy():
    with pytest.raises(ValueError, match="5 copies of 1m"):
        count_vector(parse_tiles("11111m"))
    assert tiles_of(count_vector(parse_tiles("321m"))) == [0, 1, 2]


def test_names_in_both_languages():
    assert tile_name(parse_tile("1m"), "zh") == "一万"
    assert tile_name(parse_tile("9p"), "zh") == "九筒"
    assert tile_name(parse_tile("5s"), "en") == "5 Bamboo"
    assert [tile_name(parse_tile(f"{rank}z"), "zh") for rank in range(1, 8)] == [
        "东风",
        "南风",
        "西风",
        "北风",
        "白板",
        "发财",
        "红中",
    ]
    assert tile_name(parse_tile("6z"), "en") == "Green Dragon"


def test_glyphs():
    assert tile_glyph(parse_tile("1m")) == "\U0001f007"
    assert tile_glyph(parse_tile("7z")) == "\U0001f004"
    assert tile_glyph(parse_tile("1p")) == "\U0001f019"
