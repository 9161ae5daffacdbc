# The service image for the scale-out setup (docker-compose.yml). One image, every role: ROLE picks it.
FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# devDependencies hold the test-only clients and arlocal; the service needs tsx, a dependency
RUN npm ci --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY projections ./projections
COPY scripts ./scripts
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0
EXPOSE 3000
# node itself is the container's first process, so `docker stop`'s SIGTERM reaches the service's
# graceful shutdown (npx would put npm and `sh -c` in between, and sh does not pass it on). The same
# command line as `npm start`; test/ops/startCommands.test.ts runs it and signals it.
CMD ["node", "--import", "tsx", "src/main.ts"]
