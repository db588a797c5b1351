# The image `ralph --sandbox docker` runs the agent in (SANDBOX_DOCKER_IMAGE, default
# ralph-sandbox:latest). ralph itself stays on the host: each loop runs the agent CLI in one
# long-lived container with `docker exec`, the project mounted at /workspace, as your uid:gid,
# with a private home at /ralph-home.
#
# Build:  ralph --sandbox-build   (any install method; the build context is empty, as nothing
#         is copied in: `docker build -t ralph-sandbox:latest - < Dockerfile` does the same)
# Custom: FROM ralph-sandbox:latest, then add your project's toolchain (or point
#         --sandbox-image at any image with the agent's CLI and `sleep` on PATH).

#
# Pinned: the base image by its exact Node and Debian release (a Node LTS in support; pass
# --build-arg NODE_IMAGE=node@sha256:<digest> to pin it by content), the Debian packages from
# the Debian snapshot archive of one date (the same packages on every build; an empty
# DEBIAN_SNAPSHOT takes the live mirror), and the agent CLIs at the versions ralph was tested
# with (lib/agents/tested-clis.ts).

ARG NODE_IMAGE=node:24.11.1-bookworm-slim
FROM ${NODE_IMAGE}

# What an unattended loop commonly needs: git to commit, a shell, jq, python for Python projects.
ARG DEBIAN_SNAPSHOT=20261201T000000Z
RUN if [ -n "$DEBIAN_SNAPSHOT" ]; then \
      rm -f /etc/apt/sources.list.d/debian.sources \
      && printf 'deb http://snapshot.debian.org/archive/debian/%s bookworm main\ndeb http://snapshot.debian.org/archive/debian/%s bookworm-updates main\ndeb http://snapshot.debian.org/archive/debian-security/%s bookworm-security main\n' \
           "$DEBIAN_SNAPSHOT" "$DEBIAN_SNAPSHOT" "$DEBIAN_SNAPSHOT" > /etc/apt/sources.list; \
    fi \
    && apt-get -o Acquire::Check-Valid-Until=false update \
    && apt-get install -y --no-install-recommends \
    bash ca-certificates curl git jq procps python3 python3-pip \
    && rm -rf /var/lib/apt/lists/*

# The agent CLIs ralph can drive (--agent claude|codex|gemini|opencode), at their tested versions.
RUN npm install -g @anthropic-ai/claude-code@2.1.332 @openai/codex@0.169.0 @google/gemini-cli@0.61.0 opencode-ai@1.18.33 \
    && npm cache clean --force

# ralph passes --user "$(id -u):$(id -g)" so files in /workspace keep your ownership; this is
# only the default for a manual `docker run`.
USER node
WORKDIR /workspace
CMD ["sleep", "infinity"]
