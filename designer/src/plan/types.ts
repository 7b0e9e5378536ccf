// The Taquilla layout document (docs/venues.md, D64) as the designer edits it: the same JSON the
// venues API stores. Positions are relative: a seat's to its row, a row's to its sector.

export interface Point {
  x: number;
  y: number;
}

export interface Seat {
  number: string;
  x: number;
  y: number;
  category?: string;
  wheelchair?: boolean;
  companion?: boolean;
  restricted_view?: boolean;
  pretix?: Record<string, unknown>;
}

export interface Row {
  label: string;
  priority?: number;
  position?: Point;
  seats: Seat[];
  pretix?: Record<string, unknown>;
}

interface ShapeText {
  text: string;
  color?: string;
  size?: number;
  position: Point;
}

export interface Shape {
  kind: 'rectangle' | 'ellipse' | 'circle' | 'polygon' | 'text';
  role?: 'stage' | 'aisle' | 'label' | 'area';
  position?: Point;
  rotation?: number;
  color?: string;
  border_color?: string;
  width?: number;
  height?: number;
  radius?: number;
  radius_xy?: Point;
  points?: Point[];
  text?: ShapeText;
  pretix?: Record<string, unknown>;
}

export interface Sector {
  name: string;
  numbered: boolean;
  capacity?: number;
  position?: Point;
  rows?: Row[];
  shapes?: Shape[];
  pretix?: Record<string, unknown>;
}

export interface Category {
  name: string;
  color?: string;
}

export interface Plan {
  name?: string;
  size?: { width: number; height: number };
  focal_point?: Point | null;
  categories?: Category[];
  sectors: Sector[];
  shapes?: Shape[];
}

/** The flags a seat may carry. */
export const FLAGS = ['wheelchair', 'companion', 'restricted_view'] as const;
export type Flag = (typeof FLAGS)[number];

const ORIGIN: Point = { x: 0, y: 0 };
export const pos = (p: Point | undefined): Point => p ?? ORIGIN;
