"""Bot API methods about the bot itself and its updates: getMe, getUpdates, webhooks, commands."""

from __future__ import annotations

import asyncio
import copy
import re
import time
from collections.abc import Mapping
from typing import Any

import aiohttp

from tests.fakes.telegram.records import (
    DEFAULT_DESCRIPTIONS,
    ApiError,
    UploadedFile,
    dumps,
    scope_key,
)
from tests.fakes.telegram.text import utf16_len


class UpdateMethods:
    """Bot API methods about the bot and its updates, part of :class:`FakeTelegram`."""

    def _answer_true(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> bool:
        return True

    def _api_getMe(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> dict:
        return self.bot_user()

    async def _api_getUpdates(
        self, params: dict[str, Any], files: dict[str, UploadedFile]
    ) -> list[dict]:
        if self.webhook is not None:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        offset = params.get("offset")
        limit = min(max(int(params.get("limit") or 100), 1), 100)
        timeout = float(params.get("timeout") or 0)
        if params.get("allowed_updates") is not None:
            self._allowed_updates = set(params["allowed_updates"]) or None
        if isinstance(offset, int):
            if offset < 0:
                self._pending = self._pending[offset:]
            else:
                self._pending = [u for u in self._pending if u["update_id"] >= offset]
        self._pending = [u for u in self._pending if self._allowed(u)]
        self._poll_generation += 1
        generation = self._poll_generation
        self._notify()  # a newer getUpdates terminates a waiting one
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if generation != self._poll_generation:
                raise ApiError(409, DEFAULT_DESCRIPTIONS[409])
            ready = [u for u in self._pending if self._allowed(u)][:limit]
            remaining = deadline - loop.time()
            if ready or remaining <= 0 or self._closing:
                return copy.deepcopy(ready)
            await self._wait_change(remaining)

    def _allowed(self, update: Mapping[str, Any]) -> bool:
        if self._allowed_updates is None:
            return True
        return any(key in self._allowed_updates for key in update if key != "update_id")

    def _api_deleteWebhook(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> bool:
        if params.get("drop_pending_updates"):
            self._pending.clear()
        self.webhook = None
        self._webhook_error = None
        self._notify()
        return True

    def _api_setWebhook(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> bool:
        url = params.get("url") or ""
        if not url:
            return self._api_deleteWebhook(params, files)
        if not url.startswith(("http://", "https://")):
            raise ApiError(
                400, "Bad Request: bad webhook: An HTTPS URL must be provided for webhook"
            )
        if params.get("drop_pending_updates"):
            self._pending.clear()
        if params.get("allowed_updates") is not None:
            self._allowed_updates = set(params["allowed_updates"]) or None
        self.webhook = {
            "url": url,
            "secret_token": params.get("secret_token"),
            "max_connections": params.get("max_connections", 40),
            "ip_address": params.get("ip_address"),
            "has_custom_certificate": "certificate" in params or "certificate" in files,
        }
        self._webhook_error = None
        if self._webhook_task is None or self._webhook_task.done():
            self._webhook_task = asyncio.get_running_loop().create_task(self._deliver_webhooks())
        self._notify()
        return True

    def _api_getWebhookInfo(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> dict:
        hook = self.webhook or {}
        info: dict[str, Any] = {
            "url": hook.get("url", ""),
            "has_custom_certificate": bool(hook.get("has_custom_certificate")),
            "pending_update_count": len(self._pending),
        }
        if hook:
            info["max_connections"] = hook["max_connections"]
            if hook.get("ip_address"):
                info["ip_address"] = hook["ip_address"]
            if self._allowed_updates is not None:
                info["allowed_updates"] = sorted(self._allowed_updates)
        if self._webhook_error is not None:
            info["last_error_date"], info["last_error_message"] = self._webhook_error
        return info

    async def _deliver_webhooks(self) -> None:
        async with aiohttp.ClientSession() as session:
            while self.webhook is not None and not self._closing:
                ready = [u for u in self._pending if self._allowed(u)]
                if not ready:
                    await self._wait_change(None)
                    continue
                update, hook = ready[0], self.webhook
                headers = {"Content-Type": "application/json"}
                if hook.get("secret_token"):
                    headers["X-Telegram-Bot-Api-Secret-Token"] = hook["secret_token"]
                try:
                    async with session.post(
                        hook["url"],
                        data=dumps(update),
                        headers=headers,
                        timeout=aiohttp.ClientTimeout(total=10),
                    ) as response:
                        await response.read()
                        error = None
                        if not 200 <= response.status < 300:
                            error = f"Wrong response from the webhook: {response.status}"
                except (aiohttp.ClientError, OSError, TimeoutError) as exc:
                    error = f"Connection failed: {exc!r}"
                if error is None:
                    if update in self._pending:
                        self._pending.remove(update)
                    self.webhook_deliveries.append(update)
                    self._notify()
                else:
                    self._webhook_error = (int(time.time()), error)
                    await self._wait_change(0.05)  # retry soon, as Telegram retries later

    def _api_setMyCommands(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise ApiError(400, "Bad Request: commands must be an array of at most 100 commands")
        for command in commands:
            name = command.get("command", "") if isinstance(command, dict) else ""
            if not re.fullmatch(r"[a-z0-9_]{1,32}", name):
                raise ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
            if not 1 <= len(command.get("description", "")) <= 256:
                raise ApiError(400, "Bad Request: command description must be non-empty")
        key = scope_key(params.get("scope"), params.get("language_code") or "")
        self.my_commands[key] = copy.deepcopy(commands)
        return True

    def _api_setMyDescription(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> bool:
        return self._set_profile_text(params, "description", 512)

    def _api_setMyShortDescription(
        self, params: dict[str, Any], files: dict[str, UploadedFile]
    ) -> bool:
        return self._set_profile_text(params, "short_description", 120)

    def _api_getMyDescription(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> dict:
        return {"description": self._profile_text(params, "description")}

    def _api_getMyShortDescription(
        self, params: dict[str, Any], files: dict[str, UploadedFile]
    ) -> dict:
        return {"short_description": self._profile_text(params, "short_description")}

    def _set_profile_text(self, params: dict[str, Any], field: str, limit: int) -> bool:
        """setMyDescription / setMyShortDescription as Telegram checks them: a text of at
        most ``limit`` characters (empty or absent: removed), a two-letter language code
        or none, and no other parameter."""
        unknown = set(params) - {field, "language_code"}
        if unknown:
            raise ApiError(400, f"Bad Request: unexpected parameters {sorted(unknown)}")
        text = params.get(field)
        if text is not None and not isinstance(text, str):
            raise ApiError(400, f"Bad Request: {field} must be a string")
        if text is not None and utf16_len(text) > limit:
            raise ApiError(400, f"Bad Request: {field} is too long")
        language = params.get("language_code") or ""
        if language and not re.fullmatch(r"[a-z]{2}", str(language)):
            raise ApiError(400, "Bad Request: language code is invalid")
        key = (field, str(language))
        if text:
            self.profile_texts[key] = text
        else:
            self.profile_texts.pop(key, None)
        return True

    def _profile_text(self, params: dict[str, Any], field: str) -> str:
        """The text for the asked language, else the default one (as Telegram answers)."""
        language = str(params.get("language_code") or "")
        return self.profile_texts.get((field, language)) or self.profile_texts.get((field, ""), "")

    def _api_getMyCommands(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> list:
        return self.commands(
            scope=params.get("scope"), language_code=params.get("language_code") or ""
        )

    def _api_deleteMyCommands(self, params: dict[str, Any], files: dict[str, UploadedFile]) -> bool:
        self.my_commands.pop(
            scope_key(params.get("scope"), params.get("language_code") or ""), None
        )
        return True
