import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { KeysController } from './keys.controller';
import { CreateKeyUseCase, RevokeKeyUseCase, RotateKeyUseCase } from './use-cases/keys.use-cases';

@Module({ imports: [AuthModule], controllers: [KeysController], providers: [CreateKeyUseCase, RevokeKeyUseCase, RotateKeyUseCase] })
export class KeysModule {}
