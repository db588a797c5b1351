// Where ralph's own package is installed: the folder holding package.json, bin/, dist/ and
// templates/ (lib/platform/ and dist/platform/ both sit two levels below it).

import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = fileURLToPath(new URL('../..', import.meta.url));
