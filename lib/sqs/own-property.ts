/**
 * Sets a property as data, whatever its name: attribute names and map keys come from clients, and
 * an assignment to `__proto__` would change the object's prototype instead of adding a key.
 */
export function setOwn<T>(target: Record<string, T>, name: string, value: NoInfer<T>): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}
