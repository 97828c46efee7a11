// How a query fails: a QueryError carries one of the stable codes the server passes on to the AI
// (invalid_param, not_found, timeout, script_error, csp_blocked, ai_web_pilot_disabled, internal).

export class QueryError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** An error's message, whatever was thrown. */
export const errText = (err) => String((err && err.message) || err);
