"""Files sent with a message (`ask -a FILE`, `/attach FILE`): text files and images.

A text file's content becomes part of the message, stored in the session like the words typed
or piped with it: later turns of the session resend it (the model keeps seeing what it is asked
about), recall and exports find it, and it stays true when the file changes or goes. An image is
sent as an image block with this message only (to a provider that can see images); the session
keeps a one-line note of it (name, type, size, SHA-256), not the bytes: a 5 MB picture would
bloat every later call and the database, and the reply already says what the model saw.
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from memchat.errors import MAX_MESSAGE_CHARS, UsageError
from memchat.files import read_regular

MAX_IMAGE_BYTES = 5 * 1000 * 1000  # the Messages API's limit for one image
# Anthropic scales an image to about 1.15 megapixels at most: ~1,600 tokens. Counted as that much,
# whatever its size, so the window check errs on the safe side.
IMAGE_TOKENS = 1600
# What an image is, by its first bytes (never by its name).
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


@dataclass(frozen=True)
class Attachment:
    name: str  # the path as given
    media_type: str  # text/plain, image/png, image/jpeg, image/gif or image/webp
    text: str = ""  # a text file's content
    data: bytes = b""  # an image's bytes

    @property
    def is_image(self) -> bool:
        return self.media_type.startswith("image/")

    def note(self) -> str:
        """The line the stored message keeps for an image (its bytes are not stored)."""
        digest = hashlib.sha256(self.data).hexdigest()[:16]
        return f"[image attached: {self.name} · {self.media_type} · {len(self.data):,} bytes · sha256 {digest}]"

    def block(self) -> dict[str, object]:
        """The image as a Messages API content block."""
        encoded = base64.standard_b64encode(self.data).decode("ascii")
        return {"type": "image", "source": {"type": "base64", "media_type": self.media_type, "data": encoded}}


def _image_type(data: bytes) -> str | None:
    for magic, media_type in _MAGIC:
        if data.startswith(magic):
            return media_type
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def read(path: str) -> Attachment:
    """A file to send: UTF-8 text, or a PNG, JPEG, GIF or WebP image; else a one-line UsageError."""
    name = str(path).strip()
    if not name:
        raise UsageError("name the file to attach")
    data = read_regular(name, "an attachment", limit=max(MAX_IMAGE_BYTES, 4 * MAX_MESSAGE_CHARS))
    media_type = _image_type(data)
    if media_type is not None:
        if len(data) > MAX_IMAGE_BYTES:
            raise UsageError(f"{name} is {len(data):,} bytes; an attached image may be at most {MAX_IMAGE_BYTES:,}")
        return Attachment(name, media_type, data=data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is None or "\x00" in text:
        raise UsageError(
            f"{name} is a binary file: memchat attaches text files (UTF-8) and PNG, JPEG, GIF or WebP images"
        )
    return Attachment(name, "text/plain", text=text)


_CLOSING = re.compile(r"</\s*attachment", re.IGNORECASE)


def with_attachments(prompt: str, attached: list[Attachment]) -> str:
    """The message as stored and sent: the prompt, then each text file in a tagged block, and a
    note for each image."""
    parts = [prompt]
    for a in attached:
        if a.is_image:
            parts.append(a.note())
        else:
            body = a.text if a.text.endswith("\n") else a.text + "\n"
            body = _CLOSING.sub("‹/attachment", body)  # a file cannot end its block and pose as your words
            label = " ".join(Path(a.name).name.split()).replace('"', "'")  # one line, one attribute
            parts.append(f'<attachment name="{label}">\n{body}</attachment>')
    return "\n\n".join(p for p in parts if p)


_BLOCK = re.compile(r'\n\n(?:<attachment name="([^"\n]*)">\n|\[image attached: ([^\n·]*?) · )')


def typed_parts(stored: str) -> tuple[str, list[str]]:
    """A stored message as it was typed: its prompt (before the first attachment), and the names
    of the files attached to it."""
    found = list(_BLOCK.finditer(stored))
    if not found:
        return stored.strip(), []
    return stored[: found[0].start()].strip(), [m.group(1) or m.group(2) for m in found]
