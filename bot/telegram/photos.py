"""Pictures Telegram already has: sent again by their file id, never uploaded twice."""

from __future__ import annotations

import hashlib
from collections import OrderedDict

#: Pictures whose Telegram file id is remembered (by their bytes' digest): a picture sent
#: again (the board shown again by /board, a repaired board, the same opening board) goes by
#: its file id instead of being uploaded again.
PHOTO_MEMORY = 4096


class Photos:
    """The file id Telegram gave each picture sent lately, by the picture's digest."""

    def __init__(self) -> None:
        self._ids: OrderedDict[bytes, str] = OrderedDict()

    def photo(self, image: bytes) -> tuple[bytes, bytes | str]:
        """The picture's digest, and what to send: its file id if Telegram has it already,
        else its bytes (the digest is worked out once a picture: it costs 0.1 ms)."""
        digest = hashlib.sha1(image, usedforsecurity=False).digest()
        file_id = self._ids.get(digest)
        if file_id is None:
            return digest, image
        self._ids.move_to_end(digest)
        return digest, file_id

    def stored(self, digest: bytes, message: object) -> None:
        """Remember the file id Telegram gave the picture of ``digest`` in ``message`` (a
        sent or edited message; an inline message's edit answers True and tells none)."""
        photo = getattr(message, "photo", None)
        if not photo:
            return
        self._ids[digest] = photo[-1].file_id
        self._ids.move_to_end(digest)
        if len(self._ids) > PHOTO_MEMORY:
            self._ids.popitem(last=False)
