# The service image: one Node process per container; PostgreSQL and Redis come from the environment.
FROM node:20-bookworm-slim
WORKDIR /app
# sqlite3 (the embedded shape) compiles from source: build tools for npm ci only.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY scripts ./scripts
# The server as JavaScript (scripts/build.mjs): no TypeScript compiler at run time. src/ stays: the
# server bundles the browser pages' scripts from it on first use.
RUN node scripts/build.mjs
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0
EXPOSE 3000
USER node
# The same command as `npm start` (test/ops/startFlags.test.ts). --min-semi-space-size: a young
# generation V8 does not shrink below 16 MiB while a room is quiet (docs/performance.md, "The young generation is kept at 16 MiB").
# Operators' commands in the container: `node dist/cli.mjs ...`, `node dist/migrate.mjs`.
CMD ["node", "--min-semi-space-size=16", "--enable-source-maps", "dist/main.mjs"]
