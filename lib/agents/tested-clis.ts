// The agent CLIs at the versions ralph was tested with (their recorded runs are the fixtures of
// the adapters' tests), as `npm install -g` takes them. The sandbox image's Dockerfile installs
// exactly these (tests/unit/agents/tested-clis.test.ts checks it), and the fleet's workflow
// installs the agent's on the runner.

export const TESTED_AGENT_CLIS = {
  claude: '@anthropic-ai/claude-code@2.1.332',
  codex: '@openai/codex@0.169.0',
  gemini: '@google/gemini-cli@0.61.0',
  opencode: 'opencode-ai@1.18.33',
} as const;
