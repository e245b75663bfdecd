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

export class Participant extends Model<InferAttributes<Participant>, InferCreationAttributes<Participant>> {
  declare id: CreationOptional<number>;
  declare roomId: ForeignKey<Room['id']>;
  declare userId: ForeignKey<User['id']>;
  declare username: string;
  declare color: string;
  declare position: number;
  /** JSON text of the dice tray (rooms/store/records.ts DiceTray); null: empty */
  declare diceTray: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
  declare user?: NonAttribute<User>;
  declare room?: NonAttribute<Room>;

  static initModel(sequelize: Sequelize) {
    this.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        username: { type: DataTypes.STRING(64), allowNull: false },
        color: { type: DataTypes.STRING(7), allowNull: false },
        position: { type: DataTypes.INTEGER, allowNull: false },
        diceTray: { type: DataTypes.TEXT, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'participants', underscored: true },
    );
  }
}
