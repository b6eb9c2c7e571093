"""A local fake of Discord for the real discord.py client: HTTP patched, interactions built.

discord.py talks to Discord through two funnels, and :meth:`FakeDiscord.patch` replaces both
for the duration of a test (nothing reaches the network):

- ``discord.http.HTTPClient.request``: the bot's REST calls (login, application info,
  command sync, channel messages and their edits);
- ``discord.webhook.async_.AsyncWebhookAdapter.request``: interaction callbacks, follow-ups
  and edits of the original response.

The gateway is replaced too: ``AutoShardedClient.connect`` records the client (tests reach
it as :attr:`FakeDiscord.clients`) and waits until it is cancelled. Every request becomes a
:class:`Call` in :attr:`FakeDiscord.calls`, with its JSON payload and the bytes of every file.
Messages live in :attr:`FakeDiscord.messages` as Discord's JSON (with components and
attachments), so a button press can be built from the very message the bot last drew.

Interactions are built the way discord.py's own tests build them: a payload dict, then
``discord.Interaction(data=payload, state=client._connection)``. A slash command is run with
``client.tree._call(interaction)``; a button press through the client's view store
(``schedule_dynamic_item_call``, what ``dispatch_view`` schedules), awaited directly so no
test waits on timing. The fake checks that each interaction is acknowledged exactly once
(a second callback gets Discord's 40060 error).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar
from unittest import mock

import discord
from discord.http import HTTPClient, Route
from discord.webhook.async_ import AsyncWebhookAdapter

APP_ID = 4242
EPHEMERAL = 64
LOADING = 128
#: A plain member's permissions (no Administrator, no Manage Server).
MEMBER_PERMISSIONS = 2248473465835073
ADMINISTRATOR, MANAGE_GUILD = 1 << 3, 1 << 5
_USER_MENTION = re.compile(r"<@!?(\d+)>")


@dataclass
class Call:
    """One HTTP request the client made."""

    method: str
    path: str
    kind: str
    payload: Any
    files: dict[str, bytes] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    status: int = 200


#: A member's permissions: a plain member's, and with Administrator and Manage Server.
MEMBER_PERMISSIONS = 2248473465835073


@dataclass
class FakeUser:
    id: int
    name: str
    locale: str = "en-US"
    #: The member's permissions in the server, as Discord resolves them in an interaction.
    permissions: int = MEMBER_PERMISSIONS

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name.lower(),
            "global_name": self.name,
            "discriminator": "0",
            "avatar": None,
        }

    def member(self) -> dict[str, Any]:
        return {
            "user": self.payload(),
            "nick": None,
            "roles": [],
            "joined_at": "2024-01-01T00:00:00+00:00",
            "deaf": False,
            "mute": False,
            "flags": 0,
            "permissions": str(self.permissions),
        }


@dataclass
class FakeChannel:
    id: int
    guild_id: int | None
    name: str = "general"

    def payload(self) -> dict[str, Any]:
        if self.guild_id is None:
            return {"id": str(self.id), "type": 1, "recipients": []}
        return {
            "id": str(self.id),
            "type": 0,
            "guild_id": str(self.guild_id),
            "name": self.name,
            "position": 0,
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": None,
        }


@dataclass
class _Interaction:
    id: int
    token: str
    type: int
    channel: FakeChannel
    user: FakeUser
    message_id: int | None = None  # the message of a pressed button
    original_id: int | None = None  # the message the response created
    acks: int = 0
    loading: bool = False
    followups: int = 0


class _FakeHTTPError(discord.HTTPException):
    pass


class _Response:
    """The bits of an aiohttp response discord.HTTPException reads."""

    def __init__(self, status: int, reason: str) -> None:
        self.status = status
        self.reason = reason


def _error(status: int, code: int, message: str) -> discord.HTTPException:
    response = _Response(status, message)
    data = {"code": code, "message": message}
    if status == 404:
        return discord.NotFound(response, data)  # type: ignore[arg-type]
    if status == 403:
        return discord.Forbidden(response, data)  # type: ignore[arg-type]
    return discord.HTTPException(response, data)  # type: ignore[arg-type]


def _now() -> str:
    return datetime.now(UTC).isoformat()


class FakeDiscord:
    """Discord as one test sees it: users, servers, channels, messages and every call."""

    def __init__(self) -> None:
        self._ids = itertools.count(10**15)
        self.bot_user = FakeUser(APP_ID, "Tavla")
        self.calls: list[Call] = []
        self.messages: dict[int, dict[str, Any]] = {}
        self.blobs: dict[int, bytes] = {}  # attachment id -> bytes
        self.interactions: dict[str, _Interaction] = {}
        self.commands: dict[str, list[dict[str, Any]]] = {}  # "global" or guild id -> commands
        self.clients: list[discord.Client] = []
        self.channels: dict[int, FakeChannel] = {}
        self.users: dict[int, FakeUser] = {}
        #: (message id, user id) of every user a new message notified (mentioned and allowed).
        self.notified: list[tuple[int, int]] = []
        self._client_added = asyncio.Event()
        self._fail: dict[str, list[tuple[int, int, str]]] = {}

    # -- world -------------------------------------------------------------------------------

    def next_id(self) -> int:
        return next(self._ids)

    def user(
        self, user_id: int, name: str, locale: str = "en-US", *, admin: bool = False
    ) -> FakeUser:
        """A user; ``admin``: they may manage the server (Manage Server)."""
        permissions = MEMBER_PERMISSIONS | (MANAGE_GUILD if admin else 0)
        user = FakeUser(user_id, name, locale, permissions)
        self.users[user_id] = user
        return user

    def channel(self, channel_id: int, guild_id: int | None, name: str = "general") -> FakeChannel:
        channel = FakeChannel(channel_id, guild_id, name)
        self.channels[channel_id] = channel
        return channel

    def fail_next(self, kind: str, status: int = 500, code: int = 0, times: int = 1) -> None:
        """Make the next ``times`` calls of ``kind`` fail with ``status``."""
        self._fail.setdefault(kind, []).extend([(status, code, "injected failure")] * times)

    # -- patching ------------------------------------------------------------------------------

    @contextlib.contextmanager
    def patch(self) -> Iterator[FakeDiscord]:
        fake = self

        async def http_request(client: HTTPClient, route: Route, **kwargs: Any) -> Any:
            payload = kwargs.get("json")
            files = kwargs.get("files") or []
            for part in kwargs.get("form") or []:
                if part.get("name") == "payload_json":
                    payload = json.loads(part["value"])
            return fake._handle(route, payload, files, kwargs.get("params") or {})

        async def webhook_request(
            adapter: AsyncWebhookAdapter, route: Route, session: Any = None, **kwargs: Any
        ) -> Any:
            payload = kwargs.get("payload")
            files = kwargs.get("files") or []
            for part in kwargs.get("multipart") or []:
                if part.get("name") == "payload_json":
                    payload = json.loads(part["value"])
            return fake._handle(route, payload, files, kwargs.get("params") or {})

        async def connect(client: discord.AutoShardedClient, *, reconnect: bool = True) -> None:
            fake.clients.append(client)
            fake._client_added.set()
            await asyncio.Event().wait()  # a quiet gateway, until the task is cancelled

        with (
            mock.patch.object(HTTPClient, "request", http_request),
            mock.patch.object(AsyncWebhookAdapter, "request", webhook_request),
            mock.patch.object(discord.AutoShardedClient, "connect", connect),
        ):
            yield self

    async def wait_client(self, count: int) -> discord.Client:
        """The ``count``-th client that connected (1-based), once it has."""
        while len(self.clients) < count:
            self._client_added.clear()
            await self._client_added.wait()
        return self.clients[count - 1]

    # -- the REST API ----------------------------------------------------------------------------

    _ROUTES: ClassVar[list[tuple[str, str, str]]] = [
        ("GET", r"/users/@me", "get_me"),
        ("GET", r"/oauth2/applications/@me", "application_info"),
        ("PUT", r"/applications/(?P<app>\d+)/commands", "sync_global"),
        ("PUT", r"/applications/(?P<app>\d+)/guilds/(?P<guild>\d+)/commands", "sync_guild"),
        ("POST", r"/channels/(?P<channel>\d+)/messages", "send_message"),
        ("PATCH", r"/channels/(?P<channel>\d+)/messages/(?P<message>\d+)", "edit_message"),
        ("GET", r"/channels/(?P<channel>\d+)/messages/(?P<message>\d+)", "get_message"),
        ("POST", r"/interactions/(?P<id>\d+)/(?P<token>[^/]+)/callback", "callback"),
        ("POST", r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)", "followup"),
        ("GET", r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)/messages/@original", "get_original"),
        ("PATCH", r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)/messages/@original", "edit_original"),
        (
            "DELETE",
            r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)/messages/@original",
            "delete_original",
        ),
        (
            "PATCH",
            r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)/messages/(?P<message>\d+)",
            "edit_followup",
        ),
    ]

    def _handle(self, route: Route, payload: Any, files: list[discord.File], params: Any) -> Any:
        path = route.url.removeprefix(Route.BASE)
        blobs: dict[str, bytes] = {}
        for i, f in enumerate(files):
            f.reset()
            blobs[f"{i}:{f.filename}"] = f.fp.read()
        for method, pattern, kind in self._ROUTES:
            match = re.fullmatch(pattern, path)
            if method == route.method and match:
                call = Call(route.method, path, kind, payload, blobs, dict(params))
                self.calls.append(call)
                if self._fail.get(kind):
                    status, code, message = self._fail[kind].pop(0)
                    call.status = status
                    raise _error(status, code, message)
                try:
                    return getattr(self, "_" + kind)(call, files=blobs, **match.groupdict())
                except discord.HTTPException as exc:
                    call.status = exc.status
                    raise
        self.calls.append(Call(route.method, path, "unknown", payload, blobs, status=404))
        raise _error(404, 0, f"the fake does not know {route.method} {path}")

    def _get_me(self, call: Call, **_: Any) -> dict[str, Any]:
        return {**self.bot_user.payload(), "bot": True, "verified": True, "flags": 0}

    def _application_info(self, call: Call, **_: Any) -> dict[str, Any]:
        return {
            "id": str(APP_ID),
            "name": "Tavla",
            "icon": None,
            "description": "",
            "rpc_origins": [],
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": self.bot_user.payload(),
            "summary": "",
            "verify_key": "0" * 64,
            "flags": 0,
            "team": None,
        }

    def _synced(self, scope: str, commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
        result = [
            {**c, "id": str(self.next_id()), "application_id": str(APP_ID), "version": "1"}
            for c in commands
        ]
        self.commands[scope] = result
        return result

    def _sync_global(self, call: Call, **_: Any) -> list[dict[str, Any]]:
        return self._synced("global", call.payload)

    def _sync_guild(self, call: Call, guild: str, **_: Any) -> list[dict[str, Any]]:
        return [{**c, "guild_id": guild} for c in self._synced(guild, call.payload)]

    def _new_message(
        self,
        channel_id: int,
        payload: dict[str, Any],
        files: dict[str, bytes],
        *,
        flags: int = 0,
        interaction: _Interaction | None = None,
    ) -> dict[str, Any]:
        message_id = self.next_id()
        message: dict[str, Any] = {
            "id": str(message_id),
            "channel_id": str(channel_id),
            "author": {**self.bot_user.payload(), "bot": True},
            "content": "",
            "timestamp": _now(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [],
            "embeds": [],
            "pinned": False,
            "type": 0,
            "components": [],
            "flags": flags | int(payload.get("flags") or 0),
        }
        if interaction is not None:
            message["webhook_id"] = str(APP_ID)
            message["application_id"] = str(APP_ID)
            message["_for"] = interaction.user.id
        self.messages[message_id] = message
        self._apply(message, payload, files, creating=True)
        return message

    def _apply(
        self,
        message: dict[str, Any],
        payload: dict[str, Any],
        files: dict[str, bytes],
        *,
        creating: bool,
    ) -> None:
        """Apply a create/edit payload: Discord's semantics for content, components, files."""
        payload = payload or {}
        for key in ("content", "components", "embeds"):
            if key in payload:
                message[key] = (
                    payload[key] if payload[key] is not None else ([] if key != "content" else "")
                )
        if "flags" in payload and not creating:
            message["flags"] = (int(message["flags"]) & (EPHEMERAL)) | int(payload["flags"] or 0)
        if "content" in payload:
            mentioned = self._mentions(message["content"], payload.get("allowed_mentions"))
            message["mentions"] = [self._user_payload(user_id) for user_id in mentioned]
            message["mention_everyone"] = "@everyone" in message["content"] and (
                payload.get("allowed_mentions") is None
                or "everyone" in (payload["allowed_mentions"].get("parse") or [])
            )
            if creating:
                self.notified += [(int(message["id"]), user_id) for user_id in mentioned]
        if not creating:
            message["edited_timestamp"] = _now()
            message["flags"] = int(message["flags"]) & ~LOADING
        if "attachments" not in payload and not files:
            return
        by_index = {
            int(name.split(":", 1)[0]): (name.split(":", 1)[1], data)
            for name, data in files.items()
        }
        kept = {a["id"]: a for a in message["attachments"]}
        attachments = []
        for entry in payload.get("attachments", []) or []:
            key = str(entry["id"])
            if key in kept:
                attachments.append(kept[key])
                continue
            index = int(entry["id"])
            if index in by_index:
                filename, data = by_index[index]
                attachment_id = self.next_id()
                self.blobs[attachment_id] = data
                attachments.append(
                    {
                        "id": str(attachment_id),
                        "filename": filename,
                        "size": len(data),
                        "url": f"https://cdn.fake/{attachment_id}/{filename}",
                        "proxy_url": f"https://media.fake/{attachment_id}/{filename}",
                    }
                )
        message["attachments"] = attachments

    @staticmethod
    def _mentions(content: str, allowed: dict[str, Any] | None) -> list[int]:
        """The users a message's ``<@id>`` mentions notify, as Discord reads allowed
        mentions: without them every mention counts; with them, only ``parse: ["users"]``
        or the ``users`` listed (both at once is refused, as more than 100 users)."""
        found = list(dict.fromkeys(int(m) for m in _USER_MENTION.findall(content or "")))
        if allowed is None:
            return found
        parse = allowed.get("parse") or []
        users = allowed.get("users") or []
        if "users" in parse and users:
            raise _error(400, 50035, "Invalid Form Body: parse users and users are exclusive")
        if len(users) > 100:
            raise _error(400, 50035, "Invalid Form Body: at most 100 users")
        if "users" in parse:
            return found
        listed = {int(u) for u in users}
        return [user_id for user_id in found if user_id in listed]

    def _user_payload(self, user_id: int) -> dict[str, Any]:
        known = self.users.get(user_id)
        if known is not None:
            return known.payload()
        return FakeUser(user_id, str(user_id)).payload()

    def _message(self, message_id: int | str) -> dict[str, Any]:
        message = self.messages.get(int(message_id))
        if message is None or message.get("_deleted"):
            raise _error(404, 10008, "Unknown Message")
        return message

    def _send_message(
        self, call: Call, channel: str, files: dict[str, bytes], **_: Any
    ) -> dict[str, Any]:
        reference = (call.payload or {}).get("message_reference")
        if reference is not None:
            # A reply: Discord refuses one to a message that is not there, unless told not to.
            target = self.messages.get(int(reference["message_id"]))
            there = target is not None and str(target.get("channel_id")) == channel
            if not there and reference.get("fail_if_not_exists", True):
                raise _error(400, 50035, "Invalid Form Body: Unknown message")
            if not there:
                reference = None
        message = self._new_message(int(channel), call.payload, files)
        if reference is not None:
            message["message_reference"] = {
                "message_id": str(reference["message_id"]),
                "channel_id": channel,
            }
        return self._public(message)

    def _get_message(self, call: Call, channel: str, message: str, **_: Any) -> dict[str, Any]:
        found = self._message(message)
        if int(found["flags"]) & EPHEMERAL or str(found.get("channel_id")) != channel:
            raise _error(404, 10008, "Unknown Message")
        return self._public(found)

    def _edit_message(
        self, call: Call, channel: str, message: str, files: dict[str, bytes], **_: Any
    ) -> dict[str, Any]:
        found = self._message(message)
        if int(found["flags"]) & EPHEMERAL:
            raise _error(404, 10008, "Unknown Message")
        self._apply(found, call.payload, files, creating=False)
        return self._public(found)

    def _interaction(self, token: str) -> _Interaction:
        found = self.interactions.get(token)
        if found is None:
            raise _error(404, 10015, "Unknown Webhook")
        return found

    def _callback(
        self, call: Call, id: str, token: str, files: dict[str, bytes], **_: Any
    ) -> dict[str, Any]:
        inter = self._interaction(token)
        inter.acks += 1
        if inter.acks > 1:
            raise _error(400, 40060, "Interaction has already been acknowledged.")
        kind = int(call.payload["type"])
        data = call.payload.get("data") or {}
        message: dict[str, Any] | None = None
        if kind == 4:
            message = self._new_message(inter.channel.id, data, files, interaction=inter)
            inter.original_id = int(message["id"])
        elif kind == 5:
            inter.loading = True
            message = self._new_message(
                inter.channel.id, data, {}, flags=LOADING, interaction=inter
            )
            inter.original_id = int(message["id"])
        elif kind == 6:
            if inter.message_id is None:
                raise _error(400, 50035, "Invalid Form Body")
            inter.original_id = inter.message_id
        elif kind == 7:
            if inter.message_id is None:
                raise _error(400, 50035, "Invalid Form Body")
            message = self._message(inter.message_id)
            self._apply(message, data, files, creating=False)
            inter.original_id = inter.message_id
        else:
            raise _error(400, 50035, f"the fake does not know callback type {kind}")
        result: dict[str, Any] = {
            "interaction": {
                "id": str(inter.id),
                "type": inter.type,
                "response_message_id": str(inter.original_id) if inter.original_id else None,
                "response_message_loading": kind == 5,
                "response_message_ephemeral": bool(message and int(message["flags"]) & EPHEMERAL),
            }
        }
        if message is not None:
            result["resource"] = {"type": kind, "message": self._public(message)}
        else:
            result["resource"] = {"type": kind}
        return result

    def _followup(
        self, call: Call, token: str, files: dict[str, bytes], **_: Any
    ) -> dict[str, Any]:
        inter = self._interaction(token)
        if not inter.acks:
            raise _error(404, 10015, "Unknown Webhook")
        inter.followups += 1
        if inter.loading and inter.original_id is not None:
            # The first follow-up after "thinking…" replaces that message.
            inter.loading = False
            message = self._message(inter.original_id)
            self._apply(message, call.payload, files, creating=False)
            return self._public(message)
        message = self._new_message(inter.channel.id, call.payload, files, interaction=inter)
        return self._public(message)

    def _original(self, token: str) -> dict[str, Any]:
        inter = self._interaction(token)
        if inter.original_id is None:
            raise _error(404, 10008, "Unknown Message")
        return self._message(inter.original_id)

    def _get_original(self, call: Call, token: str, **_: Any) -> dict[str, Any]:
        return self._public(self._original(token))

    def _edit_original(
        self, call: Call, token: str, files: dict[str, bytes], **_: Any
    ) -> dict[str, Any]:
        inter = self._interaction(token)
        message = self._original(token)
        inter.loading = False
        self._apply(message, call.payload, files, creating=False)
        return self._public(message)

    def _delete_original(self, call: Call, token: str, **_: Any) -> None:
        inter = self._interaction(token)
        message = self._original(token)
        message["_deleted"] = True
        inter.loading = False
        return None

    def _edit_followup(
        self, call: Call, token: str, message: str, files: dict[str, bytes], **_: Any
    ) -> dict[str, Any]:
        self._interaction(token)
        found = self._message(message)
        self._apply(found, call.payload, files, creating=False)
        return self._public(found)

    @staticmethod
    def _public(message: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in message.items() if not k.startswith("_")}

    # -- interactions ---------------------------------------------------------------------------

    def _base(
        self, kind: int, user: FakeUser, channel: FakeChannel
    ) -> tuple[dict[str, Any], _Interaction]:
        inter = _Interaction(self.next_id(), f"tok{self.next_id()}", kind, channel, user)
        self.interactions[inter.token] = inter
        payload: dict[str, Any] = {
            "id": str(inter.id),
            "application_id": str(APP_ID),
            "type": kind,
            "token": inter.token,
            "version": 1,
            "attachment_size_limit": 25 * 1024 * 1024,
            "locale": user.locale,
            "channel_id": str(channel.id),
            "channel": channel.payload(),
            "app_permissions": "2248473465835073",
            "entitlements": [],
            "authorizing_integration_owners": {},
        }
        if channel.guild_id is not None:
            payload["guild_id"] = str(channel.guild_id)
            payload["guild_locale"] = "en-US"
            payload["guild"] = {"id": str(channel.guild_id), "locale": "en-US", "features": []}
            payload["member"] = user.member()
            payload["context"] = 0
        else:
            payload["user"] = user.payload()
            payload["context"] = 1
        return payload, inter

    def command_payload(
        self, user: FakeUser, channel: FakeChannel, name: str, **options: Any
    ) -> tuple[dict[str, Any], _Interaction]:
        scope = str(channel.guild_id) if str(channel.guild_id) in self.commands else "global"
        synced = {c["name"]: c for c in self.commands.get(scope, [])}
        command = synced[name]
        types = {o["name"]: o["type"] for o in command.get("options", [])}
        payload, inter = self._base(2, user, channel)
        resolved: dict[str, Any] = {}
        opts = []
        for key, value in options.items():
            if value is None:
                continue
            if key not in types:
                raise KeyError(f"/{name} has no option {key}")
            if isinstance(value, FakeUser):
                resolved.setdefault("users", {})[str(value.id)] = value.payload()
                if channel.guild_id is not None:
                    member = value.member()
                    member.pop("user")
                    resolved.setdefault("members", {})[str(value.id)] = member
                value = str(value.id)
            opts.append({"name": key, "type": types[key], "value": value})
        data: dict[str, Any] = {"id": command["id"], "name": name, "type": 1, "options": opts}
        if resolved:
            data["resolved"] = resolved
        if channel.guild_id is not None and scope != "global":
            data["guild_id"] = str(channel.guild_id)
        payload["data"] = data
        return payload, inter

    async def slash(
        self,
        client: discord.Client,
        user: FakeUser,
        channel: FakeChannel,
        name: str,
        **options: Any,
    ) -> Exchange:
        """Run a slash command as Discord would deliver it; the calls it caused."""
        payload, inter = self.command_payload(user, channel, name, **options)
        before = len(self.calls)
        interaction = discord.Interaction(data=payload, state=client._connection)  # type: ignore[arg-type]
        await client.tree._call(interaction)  # type: ignore[attr-defined]
        return Exchange(self, inter, self.calls[before:])

    async def press(
        self, client: discord.Client, user: FakeUser, message: dict[str, Any], custom_id: str
    ) -> Exchange:
        """Press a button of ``message`` as the user sees it (a snapshot may be out of date)."""
        channel = self.channels[int(message["channel_id"])]
        payload, inter = self._base(3, user, channel)
        inter.message_id = int(message["id"])
        self._message(message["id"])  # it must still exist
        payload["message"] = self._public(copy.deepcopy(message))
        payload["data"] = {"custom_id": custom_id, "component_type": 2}
        before = len(self.calls)
        interaction = discord.Interaction(data=payload, state=client._connection)  # type: ignore[arg-type]
        store = client._connection._view_store  # type: ignore[attr-defined]
        for pattern, item in list(store._dynamic_items.items()):
            found = pattern.fullmatch(custom_id)
            if found is not None:
                await store.schedule_dynamic_item_call(2, item, interaction, custom_id, found)
                break
        return Exchange(self, inter, self.calls[before:])

    # -- looking at the world ----------------------------------------------------------------------

    def channel_messages(self, channel: FakeChannel | int) -> list[dict[str, Any]]:
        """Public messages of a channel (no ephemeral ones), oldest first."""
        channel_id = channel.id if isinstance(channel, FakeChannel) else channel
        found = []
        for message in self.messages.values():
            if int(message["channel_id"]) != channel_id or message.get("_deleted"):
                continue
            if int(message["flags"]) & EPHEMERAL:
                continue
            found.append(message)
        return found

    def calls_to(self, kind: str) -> list[Call]:
        return [c for c in self.calls if c.kind == kind]

    def attachment_bytes(self, message: dict[str, Any]) -> bytes:
        return self.blobs[int(message["attachments"][0]["id"])]


@dataclass
class Exchange:
    """What one interaction caused."""

    fake: FakeDiscord
    interaction: _Interaction
    calls: list[Call]

    @property
    def acks(self) -> int:
        return self.interaction.acks

    def ephemeral(self) -> list[str]:
        """The texts shown only to the user who acted."""
        texts = []
        for call in self.calls:
            if call.kind == "callback" and call.payload["type"] == 4:
                data = call.payload.get("data") or {}
                if int(data.get("flags") or 0) & EPHEMERAL:
                    texts.append(data.get("content") or "")
            elif (
                call.kind == "followup" and int((call.payload or {}).get("flags") or 0) & EPHEMERAL
            ):
                texts.append(call.payload.get("content") or "")
        return texts

    def kinds(self) -> list[str]:
        return [c.kind for c in self.calls]

    def callback_types(self) -> list[int]:
        return [c.payload["type"] for c in self.calls if c.kind == "callback"]
