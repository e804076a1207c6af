/**
 * The WHATWG URL class, which Node and browsers both provide as a global. shared/ compiles
 * without DOM or Node types (it must run in both), so the part it uses is declared here.
 */
declare class URL {
  constructor(url: string, base?: string);
  password: string;
  username: string;
  protocol: string;
  search: string;
  hostname: string;
  port: string;
  /** scheme://host:port, without userinfo or path. */
  readonly origin: string;
  toString(): string;
}
