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
import type { Room } from './Room';
import type { User } from './User';
import type { RollValue } from './RollValue';
import type { RollWhisper } from './RollWhisper';

export class Roll extends Model<InferAttributes<Roll>, InferCreationAttributes<Roll>> {
  declare id: CreationOptional<number>;
  declare uuid: string;
  declare userId: ForeignKey<User['id']>;
  declare roomId: ForeignKey<Room['id']> | null;
  declare direction: number;
  declare velocity: number;
  declare equation: string;
  declare totalValue: number;
  declare operator: Record<string, unknown> | null;
  declare label: string | null;
  declare externalId: string | null;
  declare isWhispered: CreationOptional<boolean>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
  declare user?: NonAttribute<User>;
  declare room?: NonAttribute<Room | null>;
  declare values?: NonAttribute<RollValue[]>;
  declare whispers?: NonAttribute<RollWhisper[]>;

  static initModel(sequelize: Sequelize) {
    this.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        uuid: { type: DataTypes.UUID, allowNull: false },
        roomId: { type: DataTypes.INTEGER, allowNull: true },
        direction: { type: DataTypes.DOUBLE, allowNull: false },
        velocity: { type: DataTypes.DOUBLE, allowNull: false },
        // TEXT since migration 0006: written from the dice, as long as a valid request makes it
        equation: { type: DataTypes.TEXT, allowNull: false },
        totalValue: { type: DataTypes.DOUBLE, allowNull: false },
        operator: { type: DataTypes.JSON, allowNull: true },
        label: { type: DataTypes.STRING(255), allowNull: true },
        externalId: { type: DataTypes.STRING(255), allowNull: true },
        isWhispered: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'rolls', underscored: true },
    );
  }
}
