/** Types of child-registry.mjs (plain JavaScript, so that the jest setup and teardown files can import it). */
export interface ChildRecord {
  /** The child's pid, which is also its process group id (it was spawned detached). */
  pid: number;
  /** Its start time from /proc (clock ticks since boot), null where unknown. */
  startTime: string | null;
  command: string;
  /** The test file and test name that started it. */
  test: string;
}

export interface Survivor {
  record: ChildRecord;
  /** Processes of its group that were still alive. */
  pids: number[];
}

export declare const RUN_DIR_ENV: 'TEST_CHILDREN_DIR';
export declare function processStartTime(pid: number): string | null;
export declare function isAlive(pid: number, startTime?: string | null): boolean;
export declare function groupMembers(pgid: number, notBefore?: string | null): number[];
export declare function signalGroup(pgid: number, signal?: NodeJS.Signals): boolean;
export declare function killRecordedGroup(record: ChildRecord, waitMs?: number): Promise<number[]>;
export declare function createRun(root?: string): string;
export declare function register(dir: string, record: ChildRecord): void;
export declare function unregister(dir: string, pid: number): void;
export declare function recordedChildren(dir: string): ChildRecord[];
export declare function reapRun(dir: string): Promise<Survivor[]>;
export declare function describeSurvivors(survivors: Survivor[]): string;
export declare function reapAbandonedRuns(root?: string): Promise<Survivor[]>;
