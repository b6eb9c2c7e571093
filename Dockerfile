# The Tavla bot's container image (docs/operating.md, "Containers").
#
#   podman build --format docker -t tavla .        (or: docker build -t tavla .)
#
# BASE is any Debian bookworm image: debian:bookworm-slim where a registry can be reached;
# tools/image makes one from Debian's packages (mmdebstrap) where none can. Both stages use
# the same base, so the virtual environment built in the first finds the same Python in the
# second. `--format docker` keeps the HEALTHCHECK (the OCI format has no such field).
ARG BASE=docker.io/library/debian:bookworm-slim

# --- build: the dependencies from the lock (every file checked against its hash), then the
# project itself; the lock's layer is cached until requirements.runtime.lock changes.
FROM ${BASE} AS build
RUN if ! python3 -c "import ensurepip, venv" 2>/dev/null; then \
        apt-get update && apt-get install -y --no-install-recommends python3 python3-venv \
        ca-certificates && rm -rf /var/lib/apt/lists/*; \
    fi
# PIP_CERT: a CA bundle for pip where HTTPS goes through a proxy of its own (tools/image
# mounts the host's); empty elsewhere.
ARG PIP_CERT=""
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PYTHONDONTWRITEBYTECODE=1
RUN python3 -m venv /opt/tavla
COPY requirements.runtime.lock /tmp/requirements.runtime.lock
RUN if [ -z "$PIP_CERT" ]; then unset PIP_CERT; fi; \
    /opt/tavla/bin/pip install --require-hashes -r /tmp/requirements.runtime.lock
COPY pyproject.toml README.md LICENSE /src/
COPY core /src/core
COPY renderers /src/renderers
COPY bot /src/bot
RUN if [ -z "$PIP_CERT" ]; then unset PIP_CERT; fi; \
    /opt/tavla/bin/pip install --no-deps /src \
    && /opt/tavla/bin/pip check \
    && /opt/tavla/bin/python -m compileall -q /opt/tavla/lib \
    && /opt/tavla/bin/python -m core compile

# --- the image: Python, the virtual environment and a user of its own.
FROM ${BASE}
RUN if ! command -v python3 >/dev/null; then \
        apt-get update && apt-get install -y --no-install-recommends python3 ca-certificates \
        && rm -rf /var/lib/apt/lists/*; \
    fi \
    && useradd --uid 10001 --user-group --home-dir /var/lib/tavla --create-home \
        --shell /usr/sbin/nologin tavla
COPY --from=build /opt/tavla /opt/tavla
# The board pictures' fonts (DejaVu) ship inside the package (renderers/fonts).
ENV PATH=/opt/tavla/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    DATABASE_URL=sqlite:////var/lib/tavla/tavla.db \
    BOARD_DIR=/var/lib/tavla/boards \
    WEB_LISTEN=0.0.0.0 \
    WEB_PORT=8080
USER tavla
WORKDIR /var/lib/tavla
VOLUME /var/lib/tavla
EXPOSE 8080
# /healthz answers on the web board's listener, or on a listener of its own when the board
# is off (WEB_LISTEN:WEB_PORT).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python3", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('WEB_PORT', '8080'), timeout=4)"]
# SIGTERM: the bot stops taking updates, finishes what is under way and exits within 10 s.
STOPSIGNAL SIGTERM
ENTRYPOINT ["tavla"]
CMD ["run"]
