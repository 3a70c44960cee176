# The Kozel bot: slim Python, runtime dependencies only, a non-root user, a health check.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY bot ./bot
# Install the package and its runtime dependencies (no test extras) into a prefix we copy over.
RUN pip install --no-cache-dir --prefix=/install .

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
RUN useradd --create-home --uid 10001 kozel
COPY --from=build /install /usr/local
WORKDIR /app
# The sources stay beside their locales/ (bot/handlers/i18n.py finds the catalogs from bot/).
COPY --chown=kozel:kozel bot ./bot
COPY --chown=kozel:kozel locales ./locales
RUN mkdir -p /app/data && chown kozel:kozel /app/data
USER kozel
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-m", "bot.healthcheck"]
CMD ["python", "-m", "bot"]
