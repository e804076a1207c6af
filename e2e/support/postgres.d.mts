export declare function freePort(): Promise<number>;
export declare function postgresBinDir(): string;
/** A private PostgreSQL cluster in a temporary folder on a free port; `stop()` leaves no process and no files. */
export declare function startPostgres(opts?: { password?: string }): Promise<{ url: string; port: number; stop(): Promise<void>; pause(): Promise<void>; resume(): Promise<void> }>;
