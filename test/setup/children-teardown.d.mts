/** Types of children-teardown.mjs. */
export default function childrenTeardown(): Promise<void>;
