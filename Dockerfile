# mimic's container image: `docker build -t mimic . && docker run -p 8080:8080 -v mimic-data:/data mimic`
# (docs/operating.md). The process is node itself, not npm: SIGTERM from `docker stop` reaches
# the server, which finishes or releases running renders and closes the database.
FROM node:20-bookworm AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
# Locked versions, without the test tools. onnxruntime-node's CPU binary is in its tarball; its
# install script would download CUDA 12 libraries on linux-x64. package.json's allowScripts
# declines it for npm 11.19 (verified), but this image's npm is Node 20's npm 10, which ignores that
# field: the variable the script itself reads skips it (npm does not warn about it).
ENV ONNXRUNTIME_NODE_INSTALL=skip
RUN npm ci --omit=dev

FROM node:20-bookworm-slim
# pocketsphinx transcribes English consent videos (docs/consents.md); ffmpeg comes from
# @ffmpeg-installer/ffmpeg in node_modules, and the voices run in WebAssembly.
RUN apt-get update \
 && apt-get install -y --no-install-recommends pocketsphinx pocketsphinx-en-us ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY . .
ENV NODE_ENV=production \
    PORT=8080 \
    MIMIC_DATA_DIR=/data
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "bin/mimic.mjs", "serve"]
