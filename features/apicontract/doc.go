// Package apicontract learns the response shape of each API endpoint the
// page calls and reports when it changes: fields missing, types changed,
// new or null fields, array elements restructured, successes turning into
// errors. Only shapes (JSON types) are kept, never values.
package apicontract
