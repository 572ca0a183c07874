/**
 * Queries built and compiled once, then run with fresh parameters: on the hottest paths Kysely's
 * per-call building and compiling costs several times what the statement itself does.
 * `build` uses placeholder values; the parameters passed at run time must follow the order in
 * which they appear in the compiled SQL (their count is checked).
 */
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import type { Database } from './schema.js';

export function precompiled<R>(build: (db: Kysely<Database>) => Compilable<R>) {
  let compiled: CompiledQuery<R> | undefined;
  return async (db: Kysely<Database>, params: readonly unknown[]): Promise<R[]> => {
    compiled ??= build(db).compile();
    if (params.length !== compiled.parameters.length) {
      throw new Error(`precompiled query expects ${compiled.parameters.length} parameters, got ${params.length}`);
    }
    const result = await db.executeQuery(CompiledQuery.raw(compiled.sql, [...params]) as CompiledQuery<R>);
    return result.rows;
  };
}

/**
 * `precompiled` for statements whose shape depends on a count (multi-row inserts, IN lists):
 * compiled once per count, the most recently used `maxShapes` counts kept.
 */
export function precompiledSized<R>(build: (db: Kysely<Database>, size: number) => Compilable<R>, maxShapes = 64) {
  const shapes = new Map<number, CompiledQuery<R>>();
  return async (db: Kysely<Database>, size: number, params: readonly unknown[]): Promise<R[]> => {
    let compiled = shapes.get(size);
    if (compiled) {
      shapes.delete(size);
    } else {
      compiled = build(db, size).compile();
      if (shapes.size >= maxShapes) shapes.delete(shapes.keys().next().value as number);
    }
    shapes.set(size, compiled);
    if (params.length !== compiled.parameters.length) {
      throw new Error(`precompiled query of size ${size} expects ${compiled.parameters.length} parameters, got ${params.length}`);
    }
    const result = await db.executeQuery(CompiledQuery.raw(compiled.sql, [...params]) as CompiledQuery<R>);
    return result.rows;
  };
}
