import { DataTypes, Model, type CreationOptional, type ForeignKey, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import type { Room } from './Room';

/** A room's background image, in the database so every instance can serve it. */
export class RoomBackground extends Model<InferAttributes<RoomBackground>, InferCreationAttributes<RoomBackground>> {
  declare id: CreationOptional<number>;
  declare roomId: ForeignKey<Room['id']>;
  declare contentType: string;
  declare size: number;
  declare sha256: string;
  declare data: Buffer;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize) {
    this.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        contentType: { type: DataTypes.STRING(100), allowNull: false },
        size: { type: DataTypes.INTEGER, allowNull: false },
        sha256: { type: DataTypes.STRING(64), allowNull: false },
        data: { type: DataTypes.BLOB, allowNull: false },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'room_backgrounds', underscored: true },
    );
  }
}
