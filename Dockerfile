# syntax=docker/dockerfile:1
# Three stages: the web app, the Go binary with the app embedded, and a small
# runtime image that runs as an unprivileged user.

FROM node:20-bookworm AS web
WORKDIR /src/web
COPY web/package.json web/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY web/ ./
RUN npm run build

FROM golang:1.26-bookworm AS server
ARG VERSION=container
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
# The sandboxed image decoders (JPEG 2000, JPEG-LS, lossless and 12-bit
# JPEG): pinned sources compiled to WebAssembly, embedded in the binary.
COPY scripts/codecs.sh scripts/apt-ensure.sh scripts/
COPY scripts/codecs/ scripts/codecs/
RUN scripts/codecs.sh
COPY . .
COPY --from=web /src/web/dist ./web/dist
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/medishare ./cmd/medishare

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin medishare \
    && mkdir -p /data && chown medishare /data && chmod 700 /data
COPY --from=server /out/medishare /usr/local/bin/medishare
ENV MEDISHARE_ADDR=0.0.0.0:8080 \
    MEDISHARE_DATA_DIR=/data
USER medishare
VOLUME /data
EXPOSE 8080
ENTRYPOINT ["medishare"]
CMD ["serve"]
