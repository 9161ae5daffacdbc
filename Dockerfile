# The service image for the scale-out setup (docker-compose.yml). One image, every role: ROLE picks it.

# The build: the compiler is a devDependency, so it runs in a stage of its own.
FROM node:20-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY projections ./projections
COPY scripts/build.mjs ./scripts/build.mjs
RUN node scripts/build.mjs

FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# devDependencies hold the compiler, the test-only clients and arlocal; the operators' tools
# (scripts/, run with tsx, a dependency) read the sources
RUN npm ci --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY projections ./projections
COPY scripts ./scripts
COPY --from=build /app/dist ./dist
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0
EXPOSE 3000
# node itself is the container's first process, so `docker stop`'s SIGTERM reaches the service's
# graceful shutdown (npx would put npm and `sh -c` in between, and sh does not pass it on). The same
# command line as `npm start`; test/ops/startCommands.test.ts runs it and signals it.
CMD ["node", "dist/src/main.js"]
