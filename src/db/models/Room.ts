import {
  DataTypes,
  Model,
  type CreationOptional,
  type ForeignKey,
  type InferAttributes,
  type InferCreationAttributes,
  type NonAttribute,
  type Sequelize,
} from 'sequelize';
import type { User } from './User';
import type { Participant } from './Participant';

/** A room; soft-deleted (`deletedAt`) so rolls made in it keep embedding it. */
export class Room extends Model<InferAttributes<Room>, InferCreationAttributes<Room>> {
  declare id: CreationOptional<number>;
  declare slug: string;
  declare name: string;
  declare isPublic: CreationOptional<boolean>;
  declare passcode: string | null;
  declare bgFilePath: CreationOptional<string | null>;
  declare userId: ForeignKey<User['id']>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
  declare deletedAt: CreationOptional<Date | null>;
  declare user?: NonAttribute<User>;
  declare participants?: NonAttribute<Participant[]>;

  static initModel(sequelize: Sequelize) {
    this.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        slug: { type: DataTypes.STRING(64), allowNull: false },
        name: { type: DataTypes.STRING(255), allowNull: false },
        isPublic: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        passcode: { type: DataTypes.STRING(64), allowNull: true },
        bgFilePath: { type: DataTypes.STRING(512), allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
        deletedAt: { type: DataTypes.DATE, allowNull: true },
      },
      // paranoid: default scopes hide deleted rooms; pass `paranoid: false` to see them (rolls do).
      { sequelize, tableName: 'rooms', underscored: true, paranoid: true },
    );
  }
}
