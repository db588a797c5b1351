// Where the web view listens unless told otherwise: this machine only.

export const DEFAULT_WEB_HOST = '127.0.0.1';
