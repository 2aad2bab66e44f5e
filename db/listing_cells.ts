/**
 * Sorted pages merged per cell (docs/benchmarks.md §3.2). Walking an order's index to the first page skips every
 * listing the filters drop, and when a filter goes with the order (few rooms with small areas, a price range
 * with areas of that price) the walk passes most of the stock before the first match. Cut into cells of that
 * filter's column (a rooms value, a cell of the price grid), the order no longer goes with the filter inside a
 * cell: each cell's first `offset + limit` matches come from a short walk of a (cell, area, id) index of
 * migration 0033, and the page is the first of all of them, sorted.
 */
import { type Expression, type ExpressionBuilder, sql, type SqlBool } from "kysely";
import type { Database } from "./schema.ts";
import {
  kyselyPiece,
  type ListingFilter,
  orderSql,
  priceCells,
  roomsValues,
  type SqlPiece,
} from "./listing_filter.ts";

/** How a page is cut into cells: per rooms value, or per cell of the price grid. */
export type CellShape = "per_rooms" | "per_price";

/** At most this ratio of the highest to the lowest price, a price range is read per cell (about 90 cells). */
export const PRICE_CELLS_MAX_RATIO = 10;

/**
 * The cells a sorted page of `f` is read in, if any: `per_price` for an area order with a transaction type and a
 * price range of both bounds (at most {@linkcode PRICE_CELLS_MAX_RATIO} apart; a price goes with an area in both
 * directions); `per_rooms` for the smallest area first with a rooms filter and no price range (a rooms filter
 * keeps the large end of the area order; with a price range, the price cells are the better cut, measured).
 */
export function cellShape(f: ListingFilter): CellShape | undefined {
  if (f.order?.by !== "square_meters") return undefined;
  const { min_price: lo, max_price: hi } = f;
  if (lo !== undefined || hi !== undefined) {
    const bounded = lo !== undefined && hi !== undefined && lo > 0 && hi <= lo * PRICE_CELLS_MAX_RATIO;
    return bounded && f.transaction_type !== undefined ? "per_price" : undefined;
  }
  return f.order.dir === "asc" && f.min_rooms !== undefined ? "per_rooms" : undefined;
}

/** The cells of `shape` for `f` and the condition that puts a listing into the cell `c`. */
function cellsOf(f: ListingFilter, shape: CellShape): { cells: SqlPiece; member: Expression<SqlBool> } {
  if (shape === "per_rooms") {
    return { cells: roomsValues(f.min_rooms!), member: sql`"total_rooms" = "c"."cell"` };
  }
  return {
    cells: priceCells(f.min_price!, f.max_price!),
    member: sql`listing_grid_floor('price', "asked_price", false) = "c"."cell"`,
  };
}

/**
 * The ids of the page of `f` (`limit` from `offset`) in its area order, merged from the cells of `shape`; `where`
 * is the condition of all of `f`'s filters. The cell indexes hold areas ascending: a largest-first walk reads
 * one backwards, which puts listings without an area first, so it reads those with an area, and the listings
 * without one (last in either direction) come from a walk of their own.
 */
export function cellPageIds(
  eb: ExpressionBuilder<Database, "listings">,
  f: ListingFilter,
  where: (eb: ExpressionBuilder<Database, "listings">) => Expression<SqlBool>,
  shape: CellShape,
  limit: number,
  offset: number,
) {
  const order = sql.raw(orderSql(f.order));
  const desc = f.order?.dir === "desc";
  const { cells, member } = cellsOf(f, shape);
  const walk = eb.selectFrom("listings").select(["id", "square_meters"]).where(where).where(member);
  const perCell = eb.selectFrom(kyselyPiece<{ cell: number }>(cells).as("c"))
    .innerJoinLateral(
      () =>
        (desc ? walk.where("square_meters", "is not", null) : walk)
          .orderBy(desc ? sql.raw(`"square_meters" desc, "id" desc`) : order).limit(offset + limit).as("s"),
      (j) => j.onTrue(),
    )
    .select(["s.id", "s.square_meters"]);
  const unknownArea = eb.selectFrom("listings").select(["id", "square_meters"]).where(where)
    .where("square_meters", "is", null).orderBy("id", "desc").limit(offset + limit);
  const all = desc && f.min_sqm === undefined
    ? perCell.unionAll(eb.selectFrom(unknownArea.as("n")).select(["n.id", "n.square_meters"]))
    : perCell;
  return eb.selectFrom(all.as("m")).select("m.id").orderBy(order).limit(limit).offset(offset);
}
