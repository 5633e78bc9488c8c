/** The shop's data: an in-memory stand-in for a Doctrine repository. */
export interface Product {
  id: number;
  name: string;
  price: number;
  stock: number;
}

export const products: Product[] = [
  { id: 1, name: 'Espresso cup', price: 9.5, stock: 12 },
  { id: 2, name: 'Coffee grinder <Pro>', price: 129, stock: 0 },
];

export function findProduct(id: number): Product | undefined {
  return products.find((product) => product.id === id);
}

export function addProduct(name: string, price: number): Product {
  const product = { id: Math.max(0, ...products.map((p) => p.id)) + 1, name, price, stock: 0 };
  products.push(product);
  return product;
}

/** A domain exception, turned into a 409 page by OutOfStockListener (app.ts). */
export class OutOfStockError extends Error {
  constructor(readonly product: Product) {
    super(`"${product.name}" is out of stock.`);
  }
}

export function reserve(product: Product): void {
  if (product.stock <= 0) throw new OutOfStockError(product);
  product.stock -= 1;
}
