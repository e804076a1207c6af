# syntax=docker/dockerfile:1
# The in-cluster operator: `docker build -t tooldeck/operator:0.1.0 .`, then `tooldeck kube install --image …`.
# Stage 1 builds out/ with every dependency; stage 2 installs the production dependencies alone;
# the runtime is distroless Node 22 (no shell, no package manager) running as a non-root user.

FROM node:22-slim AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npx electron-vite build

FROM node:22-slim AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# No install scripts: nothing the operator loads needs one, and none may run with build secrets around.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM gcr.io/distroless/nodejs22-debian12:nonroot
WORKDIR /app
ENV NODE_ENV=production
COPY --from=production-dependencies /app/node_modules ./node_modules
COPY --from=build /src/out/main ./out/main
COPY package.json ./
COPY bin ./bin
# distroless's "nonroot" (65532); the manifests also ask for runAsNonRoot and a read-only root filesystem.
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/nodejs/bin/node", "/app/bin/tooldeck.js", "operator"]
CMD ["--listen=0.0.0.0:8080"]
