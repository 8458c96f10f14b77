import { Module } from '@nestjs/common';
import { UsersController } from './users.controller';
import { UsersUseCases } from './users.use-cases';

@Module({ controllers: [UsersController], providers: [UsersUseCases] })
export class UsersModule {}
