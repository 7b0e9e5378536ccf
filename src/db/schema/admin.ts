import { pgTable, integer, text, jsonb } from 'drizzle-orm/pg-core';
import { ts, serialId, bigserialId, createdAt } from './columns.js';

export type UserRole = 'admin' | 'promoter';

export const users = pgTable('users', {
  id: serialId(),
  email: text('email').notNull(),
  passwordHash: text('password_hash').notNull(),
  role: text('role').$type<UserRole>().notNull(),
  organiserId: integer('organiser_id'),
  createdAt: createdAt().defaultNow(),
  disabledAt: ts('disabled_at'),
});

export const userSessions = pgTable('user_sessions', {
  idHash: text('id_hash').primaryKey(),
  userId: integer('user_id').notNull(),
  csrfToken: text('csrf_token').notNull(),
  createdAt: createdAt(),
  expiresAt: ts('expires_at').notNull(),
});

export const adminApiTokens = pgTable('admin_api_tokens', {
  id: serialId(),
  userId: integer('user_id').notNull(),
  name: text('name').notNull(),
  tokenHash: text('token_hash').notNull(),
  lastFour: text('last_four').notNull(),
  createdAt: createdAt(),
  revokedAt: ts('revoked_at'),
  /** Set at most once a minute by the token check (0225). */
  lastUsedAt: ts('last_used_at'),
});

/** Invitation links of new accounts (D65, 0225): only the token's HMAC is stored. */
export const accountInvitations = pgTable('account_invitations', {
  id: serialId(),
  userId: integer('user_id').notNull(),
  tokenHash: text('token_hash').notNull(),
  createdBy: integer('created_by'),
  createdAt: createdAt(),
  expiresAt: ts('expires_at').notNull(),
  acceptedAt: ts('accepted_at'),
  revokedAt: ts('revoked_at'),
  /** The link's token is HMAC(SIGNING_SECRET, 'account-invitation:' + nonce) (0230); null on older links. */
  linkNonce: text('link_nonce'),
});

export const auditLog = pgTable('audit_log', {
  id: bigserialId(),
  userId: integer('user_id'),
  userEmail: text('user_email').notNull(),
  action: text('action').notNull(),
  targetType: text('target_type').notNull(),
  targetId: text('target_id').notNull(),
  organiserId: integer('organiser_id'),
  details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
  createdAt: createdAt(),
});
