# The graphmem API image used by docker-compose.yml (CPU-only PyTorch keeps it small).
FROM python:3.11-slim
ENV PIP_NO_CACHE_DIR=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 GRAPHMEM_HOME=/data
WORKDIR /app
RUN pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
COPY pyproject.toml README.md ./
COPY graphmem ./graphmem
COPY api ./api
COPY cypher ./cypher
RUN pip install .
# the embedding model, exported to ONNX and verified once here: containers start without torch
RUN graphmem embed-export
VOLUME /data
EXPOSE 8000
# Listening on every interface needs a token: -e GRAPHMEM_API_TOKEN=… (docs/deploying.md)
CMD ["graphmem", "serve", "--host", "0.0.0.0", "--port", "8000"]
