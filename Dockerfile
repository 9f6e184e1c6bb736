# syntax=docker/dockerfile:1
# llm-roofline: dashboard + API in one ASGI app. Build: docker build -t llm-roofline .
# The install and start commands are the ones tests/production/test_container.py runs in a venv.

FROM python:3.11-slim AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
WORKDIR /app
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
COPY requirements.lock ./
RUN pip install --no-cache-dir --no-deps -r requirements.lock
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY app ./app
COPY hardware ./hardware
COPY published ./published
COPY assets ./assets
RUN pip install --no-cache-dir --no-deps -e .

FROM python:3.11-slim
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    LLM_ROOFLINE_HOST=0.0.0.0 \
    LLM_ROOFLINE_PORT=8050 \
    DASH_DISABLE_VERSION_CHECK=true
RUN useradd --create-home --uid 10001 roofline
COPY --from=build /opt/venv /opt/venv
COPY --from=build /app /app
WORKDIR /app
USER 10001
EXPOSE 8050
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('LLM_ROOFLINE_PORT', '8050'), timeout=3)"]
CMD ["llm-roofline", "serve"]
