"""Passwords nobody should have: all blank, or among the most common passwords.

The length rule (8–1024 characters, :mod:`laizi.server.accounts`) keeps out ``123456`` and
``qwerty``; what it lets through and a guesser tries first is below.  :data:`COMMON_PASSWORDS`
holds the passwords of at least 8 characters that head the well-known published lists of the
most used passwords: the UK National Cyber Security Centre's "most hacked passwords" (the top of
Have I Been Pwned's Pwned Passwords, 2019), NordPass's and SplashData's yearly "most common
passwords" (2015–2024), and the top of the 2011 CSDN leak as studies of Chinese passwords report
it (Wang et al., "A Study of Chinese Passwords", 2015; 5201314 is "我爱你一生一世").  The list is
written out here (not copied from any file); a password is compared case-insensitively, after
NFKC and without its surrounding spaces, so ``PASSWORD1`` and ``  Password1 `` are refused too.

>>> password_refusal("correct horse battery") is None
True
>>> password_refusal("Password1")[1]
'this password is one of the most common: anyone would guess it; choose another'
>>> password_refusal(" \\u3000 \\t  ")[1]
"a password can't be all blank"
"""

from __future__ import annotations

import unicodedata

__all__ = ["COMMON_PASSWORDS", "password_refusal"]

_LIST = """
    12345678 123456789 1234567890 12345678910 0123456789 01234567 87654321 987654321
    9876543210 11111111 111111111 1111111111 00000000 000000000 0000000000 22222222 33333333
    55555555 66666666 77777777 88888888 99999999 12121212 11223344 112233445566 12341234
    12344321 11112222 123123123 123321123 123456123 12345612 147258369 123654789 789456123
    741852963 159753159 31415926 110110110 5201314520 52013145 1314520520 woaini1314
    woaini520 woaini123 iloveyou iloveyou1 iloveyou2 1qaz2wsx 1qazxsw2 zaq12wsx 1qaz2wsx3edc
    qazwsxedc qweasdzxc 123qweasd qwe123qwe qwerty123 qwerty12 qwertyui qwertyuiop 1q2w3e4r
    1q2w3e4r5t 1q2w3e4r5t6y q1w2e3r4 q1w2e3r4t5 1234qwer qwer1234 asdfghjk asdfghjkl asdf1234
    asdfasdf zxcvbnm1 zxcvbnm123 zxcvbnml a1b2c3d4 abcd1234 abc12345 abc123456 1234abcd
    12345abc 123456abc 123456aa aa123456 a1234567 a12345678 a123456789 1234567a 123456789a
    qq123456 qqqqqqqq aaaaaaaa abcdefgh abcdefg1 xxxxxxxx asdasdasd password password1
    password12 password123 password1234 passw0rd p@ssw0rd p@ssword passpass pass1234
    1password mypassword admin123 admin1234 administrator adminadmin rootroot test1234
    testtest welcome1 welcome123 letmein1 letmein123 trustno1 changeme iloveyou123
    sunshine sunshine1 princess princess1 football football1 baseball baseball1 superman
    starwars computer internet whatever michelle jennifer jessica1 mercedes corvette
    liverpool chelsea1 arsenal1 blink182 charlie1 michael1 jordan23 dragon123 monkey123
    shadow123 master123 killer123 lovelove loveyou1 dearbook xiazhili
"""
COMMON_PASSWORDS = frozenset(_LIST.split())
"""The most common passwords of 8 characters or more, lower case (see the module's text)."""

_BLANK = ("密码不能全是空白", "a password can't be all blank")
_COMMON = (
    "这个密码是最常见的密码之一，谁都猜得到，请另选一个",
    "this password is one of the most common: anyone would guess it; choose another",
)


def password_refusal(password: str) -> tuple[str, str] | None:
    """Why ``password`` is refused as ``(zh, en)``, or None when it may be used (the length is
    checked by the caller)."""
    folded = unicodedata.normalize("NFKC", password)
    if all(ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf", "Zs") for ch in folded):
        return _BLANK
    if folded.strip().casefold() in COMMON_PASSWORDS:
        return _COMMON
    return None
