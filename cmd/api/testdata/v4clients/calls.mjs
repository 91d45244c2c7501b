// Makes calls through one v4 client library from npm, used as its README
// says (no patch, no mock), and prints one JSON line a call: the HTTP status
// when the library returns it, the size of each top-level field of what it
// returned (an array's length, 1 for a value, 0 for null), or the error.
// Environment: FD_LIBRARY (the package), FD_TOKEN, FD_BASE for a library
// whose base URL can be set, and FD_CALLS, a JSON list of
// {"method": "competitions.get", "args": […]}; with FD_LIST set instead it
// prints the library's methods, one {"method": …} a line.
import FDAC from "football-data-api-client";
import FootballDataNode from "football-data-node";

const token = process.env.FD_TOKEN;
const libraries = {
  // Base URL settable: the second argument's baseUrl.
  "football-data-api-client": () => new FDAC.FootballDataClient(token, { baseUrl: process.env.FD_BASE }),
  // Base URL written in (https://api.football-data.org/v4); its methods
  // return axios's whole response.
  "football-data-node": () => new FootballDataNode(token),
};
const library = process.env.FD_LIBRARY;
const client = libraries[library]();

const methodsOf = (o) =>
  Object.getOwnPropertyNames(Object.getPrototypeOf(o)).filter((n) => n !== "constructor" && typeof o[n] === "function");

if (process.env.FD_LIST) {
  // The first library groups its methods in resources (client.teams.get).
  const resources = Object.entries(client).filter(([n, v]) => n !== "request" && typeof v === "object");
  const names = resources.length
    ? resources.flatMap(([n, r]) => methodsOf(r).map((m) => `${n}.${m}`))
    : methodsOf(client);
  for (const method of names) console.log(JSON.stringify({ method }));
  process.exit(0);
}

function sizes(data) {
  const out = {};
  for (const [k, v] of Object.entries(data ?? {})) {
    out[k] = Array.isArray(v) ? v.length : v === null ? 0 : 1;
  }
  return out;
}

for (const { method, args } of JSON.parse(process.env.FD_CALLS)) {
  const names = method.split(".");
  const owner = names.slice(0, -1).reduce((o, n) => o[n], client);
  try {
    const res = await owner[names.at(-1)](...args);
    const whole = library === "football-data-node";
    const data = whole ? res.data : res;
    console.log(JSON.stringify({ method, status: whole ? res.status : 0, sizes: sizes(data) }));
  } catch (err) {
    console.log(JSON.stringify({ method, status: err.status ?? err.response?.status ?? 0, error: `${err.name}: ${err.message}` }));
  }
}
