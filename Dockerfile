# The Kozel bot: slim Python, runtime dependencies only, a non-root user, a health check.
FROM python:3.11-slim AS build
WORKDIR /src
# The runtime dependencies only (no test extras, not the package itself) into a prefix we copy over:
# the bot's sources are in the image once, in /app beside their locales/. pyproject.toml alone, so
# this layer is built again only when the dependencies change.
COPY pyproject.toml ./
RUN python -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies'], sep=chr(10))" > requirements.txt \
    && pip install --no-cache-dir --prefix=/install -r requirements.txt

FROM python:3.11-slim
# PYTHONPATH: `bot` is found in /app from any working directory (docker exec -w, compose run -w), not
# only because the WORKDIR comes first on sys.path. DATA_DIR: the heartbeat the health check reads
# (and the embedded Redis's data) stays in /app/data wherever a process starts.
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PYTHONPATH=/app DATA_DIR=/app/data
RUN useradd --create-home --uid 10001 kozel
COPY --from=build /install /usr/local
WORKDIR /app
# The sources stay beside their locales/ (bot/render/i18n.py finds the catalogs from bot/).
COPY --chown=kozel:kozel bot ./bot
COPY --chown=kozel:kozel locales ./locales
RUN mkdir -p /app/data && chown kozel:kozel /app/data
USER kozel
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-m", "bot.healthcheck"]
CMD ["python", "-m", "bot"]
