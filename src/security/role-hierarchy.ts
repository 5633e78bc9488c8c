import type { Member } from './member.ts';

/** createApp's `roleHierarchy`: Symfony's `security.role_hierarchy`, each role and the roles it includes. */
export type RoleHierarchyConfig = Readonly<Record<string, string | readonly string[]>>;

/**
 * Symfony's RoleHierarchy: a role reaches the roles the hierarchy lists under it, and theirs, however
 * deep (`ROLE_ADMIN: [ROLE_EDITOR]`, `ROLE_EDITOR: [ROLE_API]`: an admin is also an API client). As
 * RoleHierarchy::buildRoleMap, the whole closure is computed once, when the app is built, and a cycle
 * (`ROLE_A: ROLE_B`, `ROLE_B: ROLE_A`) ends where a role comes back instead of looping.
 */
export class RoleHierarchy {
  private readonly map: ReadonlyMap<string, readonly string[]>;

  private constructor(map: ReadonlyMap<string, readonly string[]>) {
    this.map = map;
  }

  /** The compiled hierarchy, or null when there is none (no option, or `{}`): members then keep their own roles. */
  static compile(config: RoleHierarchyConfig | undefined): RoleHierarchy | null {
    if (config === undefined) return null;
    const direct = new Map<string, readonly string[]>();
    for (const [role, included] of Object.entries(config)) direct.set(role, typeof included === 'string' ? [included] : included);
    if (direct.size === 0) return null;
    const map = new Map<string, readonly string[]>();
    for (const role of direct.keys()) {
      const reached = new Set<string>();
      const pending = [...direct.get(role)!];
      while (pending.length > 0) {
        const next = pending.shift()!;
        if (next === role || reached.has(next)) continue;
        reached.add(next);
        pending.push(...(direct.get(next) ?? []));
      }
      map.set(role, [...reached]);
    }
    return new RoleHierarchy(map);
  }

  /** RoleHierarchy::getReachableRoleNames: the roles given, then every role they reach, each once. */
  reachableRoleNames(roles: readonly string[]): string[] {
    const reachable = new Set(roles);
    for (const role of roles) for (const included of this.map.get(role) ?? []) reachable.add(included);
    return [...reachable];
  }

  /**
   * The member with `reachableRoles` — its roles, `ROLE_USER` (every member's) and what they reach — which
   * isGranted, access control and the `security` option decide on, as Symfony's RoleHierarchyVoter and
   * ExpressionVoter do. `roles` stays the member's own: the session keeps those, so a changed hierarchy
   * applies to members already logged in.
   */
  withReachableRoles(member: Member): Member {
    const own = member.roles.includes('ROLE_USER') ? member.roles : [...member.roles, 'ROLE_USER'];
    return { ...member, reachableRoles: Object.freeze(this.reachableRoleNames(own)) };
  }
}

/** Checks a `roleHierarchy` option when the app is built: role names to a role name or a list of them. */
export function assertRoleHierarchy(value: unknown): asserts value is RoleHierarchyConfig {
  const shape = '{ ROLE_ADMIN: [\'ROLE_EDITOR\', \'ROLE_API\'], ROLE_EDITOR: \'ROLE_API\' }';
  const proto = value !== null && typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value) || (proto !== Object.prototype && proto !== null)) {
    throw new Error(`createApp option "roleHierarchy" must be an object of roles and the roles each includes (${shape}), got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? `a ${(value as object).constructor?.name ?? 'non-plain object'}` : typeof value}.`);
  }
  for (const [role, included] of Object.entries(value)) {
    const list: unknown[] = typeof included === 'string' ? [included] : Array.isArray(included) ? included : [undefined];
    if (role === '' || list.some((name) => typeof name !== 'string' || name === '')) {
      throw new Error(`createApp option "roleHierarchy": role ${JSON.stringify(role)} must include a role name or a list of role names (${shape}).`);
    }
  }
}
