// The server the worker reports to until the user picks another in the options page. This one
// module is rewritten by `gasoline extension DIR --port N` (extension.Write), so keep it a single
// constant.
export const DEFAULT_SERVER_URL = 'http://127.0.0.1:7890';
