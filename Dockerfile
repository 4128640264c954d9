# voxbench in a container: `docker run voxbench:0.1.0 run --target ws://host:8000/v1/realtime --model M`.
FROM node:20.19-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
RUN npm ci --ignore-scripts
COPY src src
COPY test test
COPY bench bench
COPY scripts scripts
RUN npm run build

FROM node:20.19-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist/src dist/src
COPY samples samples
COPY vendor vendor
COPY README.md ./
RUN chmod +x dist/src/cli/main.js && ln -s /app/dist/src/cli/main.js /usr/local/bin/voxbench
USER node
ENTRYPOINT ["voxbench"]
CMD ["--help"]
