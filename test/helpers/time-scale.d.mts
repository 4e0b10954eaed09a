/** Types of time-scale.mjs (plain JavaScript, so that jest.config.js can import it too). */
export declare const MAX_TIME_SCALE: number;
export declare function timeScale(env?: NodeJS.ProcessEnv): number;
export declare function scaleFromLoad(loadavg: readonly number[], cores: number): number;
