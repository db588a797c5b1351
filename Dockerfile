# The image `ralph --sandbox docker` runs the agent in (SANDBOX_DOCKER_IMAGE, default
# ralph-sandbox:latest). ralph itself stays on the host: each loop runs the agent CLI in one
# long-lived container with `docker exec`, the project mounted at /workspace, as your uid:gid,
# with a private home at /ralph-home.
#
# Build:  ralph --sandbox-build   (any install method; the build context is empty, as nothing
#         is copied in: `docker build -t ralph-sandbox:latest - < Dockerfile` does the same)
# Custom: FROM ralph-sandbox:latest, then add your project's toolchain (or point
#         --sandbox-image at any image with the agent's CLI and `sleep` on PATH).

FROM node:20-slim

# What an unattended loop commonly needs: git to commit, a shell, jq, python for Python projects.
RUN apt-get update && apt-get install -y --no-install-recommends \
    bash ca-certificates curl git jq procps python3 python3-pip \
    && rm -rf /var/lib/apt/lists/*

# The agent CLIs ralph can drive (--agent claude|codex|gemini|opencode).
RUN npm install -g @anthropic-ai/claude-code @openai/codex @google/gemini-cli opencode-ai \
    && npm cache clean --force

# ralph passes --user "$(id -u):$(id -g)" so files in /workspace keep your ownership; this is
# only the default for a manual `docker run`.
USER node
WORKDIR /workspace
CMD ["sleep", "infinity"]
