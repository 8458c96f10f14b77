import { Inject, Injectable } from '@nestjs/common';
import type { PrismaClient } from '@tollgate/db';
import { readInstallationId } from '@tollgate/rule-store';
import { PRISMA } from '../../infra/infra.module';

/** This database's installation id (ADR 0008), read once from Postgres and remembered. */
@Injectable()
export class InstallationService {
  private id: string | null = null;

  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  /** The id; null while Postgres has not answered yet (asked again on the next call). */
  async get(): Promise<string | null> {
    if (this.id === null) {
      try {
        this.id = await readInstallationId(this.prisma);
      } catch {
        return null;
      }
    }
    return this.id;
  }
}
