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
CMD ["npx", "tsx", "src/main.ts"]
