"""The fake Bot API reads multipart uploads in one pass (tests/fakes/telegram/forms.py):
what aiohttp's client writes (the bot's transport) comes back field for field and byte for
byte; a body that is not a form is refused with Telegram's 400, never half read."""

from __future__ import annotations

import json

import aiohttp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fakes.telegram import FakeBotAPI
from tests.fakes.telegram.forms import FormError, parse_form
from tests.fakes.telegram.records import UploadedFile


class _Sink:
    """Collects what aiohttp's multipart writer writes."""

    def __init__(self) -> None:
        self.data = bytearray()

    async def write(self, chunk: bytes) -> None:
        self.data += chunk


async def _encoded(fields: dict[str, str], files: dict[str, tuple[str, bytes, str]]):
    form = aiohttp.FormData()
    for name, value in fields.items():
        form.add_field(name, value)
    for name, (filename, data, content_type) in files.items():
        form.add_field(name, data, filename=filename, content_type=content_type)
    writer = form()
    sink = _Sink()
    await writer.write(sink)  # type: ignore[arg-type]
    return bytes(sink.data), writer.boundary


names = st.from_regex(r"[a-z_]{1,12}", fullmatch=True)


@settings(max_examples=60, deadline=None)
@given(
    fields=st.dictionaries(names, st.text(max_size=40), max_size=4),
    data=st.binary(max_size=3000),
    filename=st.from_regex(r"[A-Za-z0-9_.-]{1,20}", fullmatch=True),
)
async def test_what_aiohttp_writes_is_read_back_exactly(fields, data, filename) -> None:
    # A file that holds line breaks and the start of a delimiter must not be cut there.
    data = b"\r\n--" + data + b"\r\n\r\n--"
    fields.pop("photo", None)
    body, boundary = await _encoded(fields, {"photo": (filename, data, "image/jpeg")})
    got_fields, got_files = parse_form(body, boundary)
    assert got_fields == fields
    assert got_files == {"photo": UploadedFile(filename, data, "image/jpeg")}


async def test_json_fields_and_a_file_without_a_content_type() -> None:
    markup = json.dumps({"inline_keyboard": [[{"text": "Zar at 🎲", "callback_data": "r"}]]})
    body, boundary = await _encoded(
        {"chat_id": "-100123", "reply_markup": markup},
        {"document": ("analysis.txt", "Ayşe 13/7".encode(), "text/plain; charset=utf-8")},
    )
    fields, files = parse_form(body, boundary)
    assert fields == {"chat_id": "-100123", "reply_markup": markup}
    assert files["document"].data == "Ayşe 13/7".encode()
    bare = b'--b\r\nContent-Disposition: form-data; name="f"; filename="x"\r\n\r\nabc\r\n--b--\r\n'
    assert parse_form(bare, "b")[1]["f"].content_type == "application/octet-stream"


GOOD_PART = b'--b\r\nContent-Disposition: form-data; name="chat_id"\r\n\r\n1\r\n'


@pytest.mark.parametrize(
    "body",
    [
        GOOD_PART,  # no closing boundary
        b'--b\r\nContent-Disposition: form-data; name="a"\r\n1\r\n--b--\r\n',  # no blank line
        b'--b\r\nContent-Disposition: attachment; name="a"\r\n\r\n1\r\n--b--\r\n',
        b"--b\r\nContent-Disposition: form-data\r\n\r\n1\r\n--b--\r\n",  # no name
        b'--b\r\nContent-Disposition: form-data; name="a"\r\n'
        b"Content-Transfer-Encoding: base64\r\n\r\nMQ==\r\n--b--\r\n",
        b"--bx\r\n" + GOOD_PART[4:] + b"--b--\r\n",  # a boundary with more on its line
    ],
    ids=["unclosed", "no-blank-line", "not-form-data", "no-name", "base64", "boundary-line"],
)
def test_a_body_that_is_not_a_form_is_refused(body: bytes) -> None:
    with pytest.raises(FormError):
        parse_form(body, "b")
    with pytest.raises(FormError):
        parse_form(GOOD_PART + b"--b--\r\n", "")  # no boundary given


async def test_the_http_fake_answers_a_broken_upload_with_telegrams_400() -> None:
    async with FakeBotAPI() as api, aiohttp.ClientSession() as session:
        url = f"{api.base_url}123:ABC/sendPhoto"
        async with session.post(
            url,
            data=GOOD_PART,
            headers={"Content-Type": "multipart/form-data; boundary=b"},
        ) as response:
            answer = await response.json()
        assert response.status == 400
        assert answer["ok"] is False
        assert answer["error_code"] == 400
        assert answer["description"].startswith("Bad Request:")
        async with session.post(
            url, data=b"{not json", headers={"Content-Type": "application/json"}
        ) as response:
            assert response.status == 400
            assert (await response.json())["error_code"] == 400
