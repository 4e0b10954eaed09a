/**
 * Compile-time checks that two declarations of one shape agree (a GraphQL class and its domain type, a
 * request class and the engine's settings): a `type X = [Assert<Same<A, B>>, ...]` fails `tsc` when A and
 * B drift apart. Types only; nothing here exists at run time.
 */

/** true when A and B are the same type (mutual assignability would let optional or extra keys pass). */
export type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Compiles only when its argument is `true`. */
export type Assert<T extends true> = T;
