import { Module } from '@nestjs/common';
import { UsersController } from './users.controller';
import { CreateUserUseCase, DeleteUserUseCase, UpdateUserUseCase } from './use-cases/users.use-cases';

@Module({ controllers: [UsersController], providers: [CreateUserUseCase, UpdateUserUseCase, DeleteUserUseCase] })
export class UsersModule {}
