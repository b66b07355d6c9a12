# Worker / query-service image: slim Python, non-root, dependencies from pyproject.
# Used by infra/docker-compose.yml for the Dask scheduler and workers and for
# flows run from a Prefect work pool. (No Docker engine on the dev/CI machines:
# tests validate this file statically, see tests/test_infra.py.)
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PREFECT_SERVER_ANALYTICS_ENABLED=false

RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates \
 && rm -rf /var/lib/apt/lists/*

RUN useradd --create-home --uid 10001 freshindex
WORKDIR /opt/freshindex

COPY pyproject.toml README.md constraints.txt prefect.yaml ./
COPY freshindex ./freshindex
RUN pip install -c constraints.txt .

USER freshindex
WORKDIR /home/freshindex
# The quiet Dask logging config ships with the package; workers started by
# `dask worker` read it through DASK_CONFIG like LocalCluster workers do.
ENV DASK_CONFIG=/usr/local/lib/python3.11/site-packages/freshindex/flows/dask-quiet
ENTRYPOINT ["freshindex"]
CMD ["--help"]
